/** JMH microbenchmarks of klat's per-record code that only needs its public API. */
package dev.klat.benchmarks;
