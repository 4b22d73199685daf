package dev.klat.collector.export;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.common.InstrumentationLibraryInfo;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import java.util.List;

/**
 * A finished span of a breakdown, as the OpenTelemetry SDK's exporters take it: internal, status
 * unset, no events or links, resource {@code service.name=klat-collector}.
 */
record BreakdownSpan(
    String name,
    SpanContext context,
    SpanContext parent,
    long startEpochNanos,
    long endEpochNanos,
    Attributes attributes)
    implements SpanData {
  static final Resource RESOURCE = Resource.builder().put("service.name", "klat-collector").build();
  static final InstrumentationScopeInfo SCOPE =
      InstrumentationScopeInfo.create("dev.klat.collector");

  @SuppressWarnings("deprecation") // still abstract in SpanData; exporters read the scope
  private static final InstrumentationLibraryInfo LIBRARY =
      InstrumentationLibraryInfo.create(SCOPE.getName(), null);

  @Override
  public String getName() {
    return name;
  }

  @Override
  public SpanKind getKind() {
    return SpanKind.INTERNAL;
  }

  @Override
  public SpanContext getSpanContext() {
    return context;
  }

  @Override
  public SpanContext getParentSpanContext() {
    return parent;
  }

  @Override
  public StatusData getStatus() {
    return StatusData.unset();
  }

  @Override
  public long getStartEpochNanos() {
    return startEpochNanos;
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public List<EventData> getEvents() {
    return List.of();
  }

  @Override
  public List<LinkData> getLinks() {
    return List.of();
  }

  @Override
  public long getEndEpochNanos() {
    return endEpochNanos;
  }

  @Override
  public boolean hasEnded() {
    return true;
  }

  @Override
  public int getTotalRecordedEvents() {
    return 0;
  }

  @Override
  public int getTotalRecordedLinks() {
    return 0;
  }

  @Override
  public int getTotalAttributeCount() {
    return attributes.size();
  }

  @Override
  @SuppressWarnings("deprecation")
  public InstrumentationLibraryInfo getInstrumentationLibraryInfo() {
    return LIBRARY;
  }

  @Override
  public InstrumentationScopeInfo getInstrumentationScopeInfo() {
    return SCOPE;
  }

  @Override
  public Resource getResource() {
    return RESOURCE;
  }
}
