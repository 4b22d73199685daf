/** klat's Grafana dashboards as code, and the generator that writes their committed JSON. */
package dev.klat.dashboards;
