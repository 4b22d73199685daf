package dev.klat.collector.scale.ingest;

import dev.klat.collector.receive.MalformedException;
import dev.klat.collector.receive.ProtoReader;
import dev.klat.collector.receive.ProtoWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits an OTLP/protobuf {@code ExportTraceServiceRequest} into one request per trace id, so that
 * every span of a trace lands on the same partition of the span topic and so reaches the same join
 * member. Works on bytes: the resource, scope and span messages are checked for framing and copied
 * as they are, never decoded (the join decodes them once, at the other end of the topic).
 *
 * <p>Each piece keeps, for every {@code ResourceSpans} and {@code ScopeSpans} that held spans of
 * its trace, the resource, the scope and both schema URLs, in the order of the request. Spans
 * without a trace id (absent or all zeros) form one piece of their own. A request of one trace is
 * forwarded as it came.
 *
 * <p>One exception routes a span by another trace than its own: a span of kind {@code CONSUMER} or
 * {@code CLIENT} with at least one span link goes with its first link's trace (section 10 of the
 * latency model). OpenTelemetry instrumentations that link a consumer span to its producer instead
 * of making it the child put it in another trace (kafkajs's {@code eachBatch}, the Java agent with
 * receive telemetry on, confluent-kafka-python, Confluent.Kafka's .NET poll, whose poll span is a
 * {@code CLIENT} span): routed by its own trace it would reach another join member than the
 * producer span it names. klat's own consumer spans carry no links, and its producer spans (which
 * link to their inputs, section 9) are {@code PRODUCER} spans, so neither is moved.
 */
public final class TraceSplitter {
  private static final int LEN = ProtoReader.LENGTH_DELIMITED;
  // ExportTraceServiceRequest.resource_spans
  private static final int RESOURCE_SPANS = 1 << 3 | LEN;
  // ResourceSpans.resource, .scope_spans, .schema_url
  private static final int RESOURCE = 1 << 3 | LEN;
  private static final int SCOPE_SPANS = 2 << 3 | LEN;
  private static final int SCHEMA_URL = 3 << 3 | LEN;
  // ScopeSpans.scope, .spans, .schema_url (3, as above)
  private static final int SCOPE = 1 << 3 | LEN;
  private static final int SPANS = 2 << 3 | LEN;
  // Span.trace_id, .kind, .links; Span.Link.trace_id
  private static final int TRACE_ID_FIELD = 1;
  private static final int KIND_FIELD = 6;
  private static final int LINKS_FIELD = 13;
  private static final int LINK_TRACE_ID_FIELD = 1;
  // Span.SpanKind
  private static final int KIND_CLIENT = 3;
  private static final int KIND_CONSUMER = 5;

  private static final byte[] NO_TRACE_KEY = new byte[0];

  private TraceSplitter() {}

  /**
   * One trace's request.
   *
   * @param key the record key: the trace id as 32 lower-case hex digits in UTF-8, or empty for
   *     spans without a trace id (see {@link #key})
   * @param body an {@code ExportTraceServiceRequest} holding the trace's spans of the request
   * @param spans how many spans it holds
   */
  public record Piece(byte[] key, byte[] body, int spans) {}

  /**
   * Splits {@code body[0..length)}; a request without spans gives no pieces.
   *
   * @throws MalformedException if the body, a resource, scope or span does not frame, or a trace id
   *     is neither 0 nor 16 bytes long
   */
  public static List<Piece> split(byte[] body, int length) throws MalformedException {
    Map<TraceId, List<SpanRange>> traces = new LinkedHashMap<>();
    ProtoReader r = new ProtoReader(body, length);
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == RESOURCE_SPANS) {
        int outer = r.push();
        resourceSpans(r, traces);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    List<Piece> pieces = new ArrayList<>(traces.size());
    if (traces.size() == 1) {
      Map.Entry<TraceId, List<SpanRange>> only = traces.entrySet().iterator().next();
      pieces.add(
          new Piece(key(only.getKey()), Arrays.copyOf(body, length), only.getValue().size()));
      return pieces;
    }
    for (Map.Entry<TraceId, List<SpanRange>> trace : traces.entrySet()) {
      pieces.add(
          new Piece(key(trace.getKey()), write(body, trace.getValue()), trace.getValue().size()));
    }
    return pieces;
  }

  /**
   * The record key of a trace's piece, as the OpenTelemetry Collector's {@code kafka} exporter sets
   * it with {@code partition_traces_by_id: true}, so that its records and klat's land on the same
   * partitions: the trace id as lower-case hex text, empty for an all-zero id. Read in
   * opentelemetry-collector-contrib, {@code exporter/kafkaexporter/kafka_exporter.go}, {@code
   * partitionData} of the traces messenger: {@code
   * []byte(traceutil.TraceIDToHexOrEmptyString(...))}. Its older {@code keyed_pdata_marshaler.go}
   * used the raw 16 bytes; klat matches the current exporter.
   */
  static byte[] key(long traceIdHigh, long traceIdLow) {
    if (traceIdHigh == 0 && traceIdLow == 0) {
      return NO_TRACE_KEY;
    }
    HexFormat hex = HexFormat.of();
    return (hex.toHexDigits(traceIdHigh) + hex.toHexDigits(traceIdLow))
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] key(TraceId id) {
    return key(id.high(), id.low());
  }

  record TraceId(long high, long low) {}

  /** Where a resource's (or scope's) message and schema URL lie in the body; -1: absent. */
  private static final class Envelope {
    final Envelope parent;
    int messageFrom = -1;
    int messageLength;
    int schemaFrom = -1;
    int schemaLength;

    Envelope(Envelope parent) {
      this.parent = parent;
    }
  }

  private record SpanRange(Envelope scope, int from, int length) {}

  private static void resourceSpans(ProtoReader r, Map<TraceId, List<SpanRange>> traces)
      throws MalformedException {
    // Ranges, not copies: the resource may come after its scopes on the wire.
    Envelope resource = new Envelope(null);
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == RESOURCE) {
        range(r, resource, true);
      } else if (tag == SCHEMA_URL) {
        range(r, resource, false);
      } else if (tag == SCOPE_SPANS) {
        int outer = r.push();
        scopeSpans(r, new Envelope(resource), traces);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
  }

  private static void scopeSpans(
      ProtoReader r, Envelope scope, Map<TraceId, List<SpanRange>> traces)
      throws MalformedException {
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == SCOPE) {
        range(r, scope, true);
      } else if (tag == SCHEMA_URL) {
        range(r, scope, false);
      } else if (tag == SPANS) {
        int outer = r.push();
        SpanRange span = new SpanRange(scope, r.position(), r.remaining());
        traces.computeIfAbsent(routingTraceId(r), k -> new ArrayList<>()).add(span);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
  }

  // The last occurrence wins, as protobuf merges a repeated singular field.
  private static void range(ProtoReader r, Envelope into, boolean message)
      throws MalformedException {
    int outer = r.push();
    if (message) {
      into.messageFrom = r.position();
      into.messageLength = r.remaining();
    } else {
      into.schemaFrom = r.position();
      into.schemaLength = r.remaining();
    }
    r.pop(outer);
  }

  /**
   * The trace a span is routed by: its trace id, or for a consumer or client span with links its
   * first link's (see the class comment). Checks the framing of the span's other fields without
   * decoding them.
   */
  static TraceId routingTraceId(ProtoReader r) throws MalformedException {
    long high = 0;
    long low = 0;
    long kind = 0;
    boolean linked = false;
    long linkHigh = 0;
    long linkLow = 0;
    while (r.hasMore()) {
      int tag = r.tag();
      int field = tag >>> 3;
      if (field == TRACE_ID_FIELD) {
        requireLengthDelimited(tag, "span trace_id");
        int outer = r.pushId(2);
        high = r.idWord();
        low = r.idWord();
        r.pop(outer);
      } else if (field == KIND_FIELD && (tag & 7) == ProtoReader.VARINT) {
        kind = r.varint();
      } else if (field == LINKS_FIELD && !linked) {
        requireLengthDelimited(tag, "span links");
        int outer = r.push();
        long[] id = linkTraceId(r);
        r.pop(outer);
        linked = true;
        linkHigh = id[0];
        linkLow = id[1];
      } else {
        r.skip(tag);
      }
    }
    boolean byLink =
        linked && (linkHigh != 0 || linkLow != 0) && (kind == KIND_CONSUMER || kind == KIND_CLIENT);
    return byLink ? new TraceId(linkHigh, linkLow) : new TraceId(high, low);
  }

  // A Span.Link's trace id, {0, 0} when absent; its other fields checked for framing.
  private static long[] linkTraceId(ProtoReader r) throws MalformedException {
    long[] id = new long[2];
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag >>> 3 == LINK_TRACE_ID_FIELD) {
        requireLengthDelimited(tag, "link trace_id");
        int outer = r.pushId(2);
        id[0] = r.idWord();
        id[1] = r.idWord();
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    return id;
  }

  private static void requireLengthDelimited(int tag, String field) throws MalformedException {
    if ((tag & 7) != LEN) {
      throw new MalformedException(field + ": wire type " + (tag & 7));
    }
  }

  /** One trace's request: its spans in body order, so a scope's spans are contiguous. */
  private static byte[] write(byte[] body, List<SpanRange> spans) {
    ProtoWriter request = new ProtoWriter();
    ProtoWriter resourceSpans = null;
    ProtoWriter scopeSpans = null;
    Envelope scope = null;
    for (SpanRange span : spans) {
      if (span.scope() != scope) {
        if (scopeSpans != null) {
          resourceSpans.messageField(2, withSchema(body, scopeSpans, scope));
        }
        if (scope == null || span.scope().parent != scope.parent) {
          if (resourceSpans != null) {
            request.messageField(1, withSchema(body, resourceSpans, scope.parent));
          }
          resourceSpans = start(body, span.scope().parent);
        }
        scope = span.scope();
        scopeSpans = start(body, scope);
      }
      scopeSpans.bytesField(2, body, span.from(), span.length());
    }
    if (scopeSpans != null) {
      resourceSpans.messageField(2, withSchema(body, scopeSpans, scope));
      request.messageField(1, withSchema(body, resourceSpans, scope.parent));
    }
    return request.toByteArray();
  }

  // Field 1 is the resource of a ResourceSpans and the scope of a ScopeSpans.
  private static ProtoWriter start(byte[] body, Envelope envelope) {
    ProtoWriter w = new ProtoWriter();
    if (envelope.messageFrom >= 0) {
      w.bytesField(1, body, envelope.messageFrom, envelope.messageLength);
    }
    return w;
  }

  // Field 3 is the schema URL of both.
  private static ProtoWriter withSchema(byte[] body, ProtoWriter w, Envelope envelope) {
    if (envelope.schemaFrom >= 0) {
      w.bytesField(3, body, envelope.schemaFrom, envelope.schemaLength);
    }
    return w;
  }
}
