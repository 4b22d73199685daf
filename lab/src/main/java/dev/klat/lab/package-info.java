/**
 * {@code ./klat lab}: the tuning experiments, their producer and consumer applications, the run
 * that plans them within a time budget, and the report of which segment each setting moved.
 */
package dev.klat.lab;
