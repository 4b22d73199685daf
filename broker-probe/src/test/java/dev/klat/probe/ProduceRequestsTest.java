package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Set;
import org.apache.kafka.common.memory.MemoryPool;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.network.Request;
import org.apache.kafka.network.metrics.RequestChannelMetrics;
import org.junit.jupiter.api.Test;

/**
 * The request times read from the broker's own request handler state: Kafka 4.4's thread-local and
 * request class, set as {@code KafkaRequestHandler.run} sets them around {@code KafkaApis.handle}.
 */
class ProduceRequestsTest {

  @SuppressWarnings("unchecked")
  private static ThreadLocal<Object> kafkasCurrentRequest() {
    return (ThreadLocal<Object>)
        (ThreadLocal<?>)
            kafka.server.KafkaRequestHandler$.MODULE$
                .kafka$server$KafkaRequestHandler$$threadCurrentRequest();
  }

  private static Request request(long receivedNanos) {
    ApiVersionsRequest body = new ApiVersionsRequest.Builder().build();
    RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, body.version(), "client", 7);
    RequestContext context =
        new RequestContext(
            header,
            "connection-1",
            InetAddress.getLoopbackAddress(),
            KafkaPrincipal.ANONYMOUS,
            ListenerName.normalised("PLAINTEXT"),
            SecurityProtocol.PLAINTEXT,
            ClientInformation.EMPTY,
            false);
    ByteBuffer buffer = body.serialize().buffer();
    return new Request(
        1,
        context,
        receivedNanos,
        MemoryPool.NONE,
        buffer,
        new RequestChannelMetrics(Set.of(ApiKeys.API_VERSIONS)));
  }

  @Test
  void anAppendOnARequestThreadReadsItsRequestsQueueTimeAndTheTimeSince() throws Throwable {
    long received = System.nanoTime() - 5_000_000;
    Request request = request(received);
    request.requestDequeueTimeNanos(received + 3_000_000);
    kafkasCurrentRequest().set(request);
    try {
      long packed = ProduceRequests.timesAt(received + 3_250_000, Request.class);
      assertThat(RequestTimes.queueMicros(packed)).isEqualTo(3_000);
      assertThat(RequestTimes.localMicros(packed)).isEqualTo(250);
    } finally {
      kafkasCurrentRequest().remove();
    }
  }

  @Test
  void anAppendOffARequestThreadHasNoRequestTimes() throws Throwable {
    assertThat(ProduceRequests.timesAt(System.nanoTime(), Request.class))
        .isEqualTo(RequestTimes.UNKNOWN);
  }

  @Test
  void aRequestNotYetDequeuedHasNoRequestTimes() throws Throwable {
    kafkasCurrentRequest().set(request(System.nanoTime()));
    try {
      assertThat(ProduceRequests.timesAt(System.nanoTime(), Request.class))
          .isEqualTo(RequestTimes.UNKNOWN);
    } finally {
      kafkasCurrentRequest().remove();
    }
  }
}
