// The type a klat dashboard's JSON must have: Grafana's own published dashboard schema
// (@grafana/schema, generated from Grafana's CUE kinds), with each panel's `options` and
// `fieldConfig.defaults.custom` typed by that panel plugin's own schema (its panelcfg kind).
// check.js assigns each dashboard's JSON to this type as an object literal, so TypeScript's excess
// property check rejects a key the schema does not know, at any depth, as well as a wrong type.
import type * as grafana from '@grafana/schema';
import type * as raw from '@grafana/schema/dist/esm/raw/dashboard/x/dashboard_types.gen';
import type * as BarGauge from '@grafana/schema/dist/esm/raw/composable/bargauge/panelcfg/x/BarGaugePanelCfg_types.gen';
import type * as Stat from '@grafana/schema/dist/esm/raw/composable/stat/panelcfg/x/StatPanelCfg_types.gen';
import type * as Table from '@grafana/schema/dist/esm/raw/composable/table/panelcfg/x/TablePanelCfg_types.gen';
import type * as Tempo from '@grafana/schema/dist/esm/raw/composable/tempo/dataquery/x/TempoDataQuery_types.gen';
import type * as TimeSeries from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';

/**
 * A schema type as it appears in JSON. Grafana's TypeScript declares enumerations as TypeScript
 * `enum`s, to which a JSON string is never assignable; in JSON they are their values, so a string
 * enum becomes the union of its values (`${E}`). Numeric enums are left alone: TypeScript accepts
 * a number literal that is one of their members. Nothing else changes: optional stays optional,
 * and objects without an index signature stay closed to unknown keys.
 */
type Json<T> = T extends string
  ? `${T}`
  : T extends number | boolean | null | undefined
    ? T
    : T extends Array<infer U>
      ? Array<Json<U>>
      : T extends object
        ? { [K in keyof T]: Json<T[K]> }
        : T;

/**
 * A Prometheus query. NOT MODELLED BY @grafana/schema: it has no Prometheus query type, and its
 * dashboard schema types every panel target as `Record<string, unknown>`. Grafana's generated
 * Prometheus query type ships only inside @grafana/prometheus (11.3.0), a bundle that imports
 * @grafana/data, @grafana/ui, @grafana/runtime and React, too much to install for one type. So only
 * the fields common to every data source query (`refId`, `datasource`, `hide`, `queryType`, `key`)
 * are checked here. Of the Prometheus fields,
 * `expr` is checked by MetricNamesTest (its metric names) and PrometheusIT (Prometheus runs it) and
 * `exemplar` by DashboardsTest; `legendFormat`, `range`, `instant` and `format` by nothing.
 */
type PrometheusQuery = grafana.DataQuery & Record<string, unknown>;

/** A Tempo query: Grafana's Tempo data source schema, every key checked. */
type TempoQuery = Tempo.TempoQuery;

/**
 * A panel of plugin `type`: Grafana's panel with `options` and `fieldConfig.defaults.custom`
 * narrowed to the plugin's panelcfg types (Grafana's own Panel type leaves them as open records).
 * `Custom` is `never` for plugins whose schema declares no field config, so `custom` must be
 * absent.
 */
type PanelOf<Type extends string, Options, Custom, Query> = Omit<
  raw.Panel,
  'type' | 'options' | 'fieldConfig' | 'targets'
> & {
  type: Type;
  options?: Options;
  fieldConfig?: Omit<raw.FieldConfigSource, 'defaults'> & {
    defaults: Omit<raw.FieldConfig, 'custom'> & { custom?: Custom };
  };
  targets?: Query[];
};

// The panel plugins klat uses. A new plugin, or a new data source for one of them, fails the check
// until it is added here with its own schema types: nothing falls back to an open record.
type TimeSeriesPanel = PanelOf<'timeseries', TimeSeries.Options, TimeSeries.FieldConfig, PrometheusQuery>;
type StatPanel = PanelOf<'stat', Stat.Options, never, PrometheusQuery>;
type BarGaugePanel = PanelOf<'bargauge', BarGauge.Options, never, PrometheusQuery>;
// klat's only table is the Tempo list of the slowest traces.
type TablePanel = PanelOf<'table', Table.Options, Table.FieldConfig, TempoQuery>;

type KlatPanel = TimeSeriesPanel | StatPanel | BarGaugePanel | TablePanel;

/** Grafana's row; the panels of a collapsed row are typed like the dashboard's. */
type RowPanel = Omit<raw.RowPanel, 'panels'> & { panels: KlatPanel[] };

/** A klat dashboard: Grafana's Dashboard type, whose panels are the ones above. */
export type KlatDashboard = Json<
  Omit<grafana.Dashboard, 'panels'> & { panels?: Array<KlatPanel | RowPanel> }
>;
