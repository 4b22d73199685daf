package dev.klat.itapps.springboot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application as users write them: {@link OrderSender} sends {@code app.records}
 * records to each of two topics with the auto-configured {@code KafkaTemplate}; {@link
 * OrderListeners} reads one with a record listener and the other with a batch listener. It exits
 * once every record was received, printing {@code RECEIVED=} and {@code BATCH_RECEIVED=}, and with
 * a non-zero code when they did not all arrive in time. With {@code app.linger-seconds} it first
 * prints {@code LINGERING} and stays up, serving {@code /actuator/prometheus}, until its standard
 * input ends or that time passed. With the profile {@code pipeline} it is instead the last hop of
 * PipelineIT's pipeline ({@link PipelineListener}).
 */
@SpringBootApplication
public class OrdersApp {

  public static void main(String[] args) {
    ConfigurableApplicationContext context = SpringApplication.run(OrdersApp.class, args);
    System.exit(SpringApplication.exit(context));
  }
}
