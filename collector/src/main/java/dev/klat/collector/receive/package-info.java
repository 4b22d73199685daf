/** The OTLP/HTTP receiver and the decoding of OTLP protobuf and JSON into join inputs. */
package dev.klat.collector.receive;
