/**
 * The latency model's vocabulary shared by the agent, the collector and the dashboards: instants,
 * segments and their breakdown, the timing header, span attribute keys and metric names; and the
 * syntax of every klat setting ({@link dev.klat.model.SettingValues}, {@link
 * dev.klat.model.SettingType}, {@link dev.klat.model.Durations}), the shape of one entry of a
 * settings table ({@link dev.klat.model.SettingDef}) and the rule that names them ({@link
 * dev.klat.model.SettingNames}).
 */
package dev.klat.model;
