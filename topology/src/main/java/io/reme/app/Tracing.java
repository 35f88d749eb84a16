package io.reme.app;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporterBuilder;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The traces' SDK, from OpenTelemetry's own environment variables: off (a no-op API, nothing recorded) unless
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_ENDPOINT} is set, then spans batched and
 * sent over OTLP/HTTP (protobuf) to {@code <endpoint>/v1/traces} (the traces endpoint as given), with the headers of
 * {@code OTEL_EXPORTER_OTLP_HEADERS} ({@code k=v,k=v}) and the service name of {@code OTEL_SERVICE_NAME} ({@value
 * #DEFAULT_SERVICE} by default). {@code OTEL_SDK_DISABLED=true} keeps it off.
 */
public final class Tracing {
    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);
    static final String DEFAULT_SERVICE = "reme-streams";
    private static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");

    private Tracing() {}

    /** The SDK the environment asks for (close it to send what is left), or a no-op one. */
    public static OpenTelemetry fromEnvironment(Map<String, String> env) {
        String endpoint = tracesEndpoint(env);
        if (endpoint == null || "true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "false"))) {
            return OpenTelemetry.noop();
        }
        OtlpHttpSpanExporterBuilder exporter = OtlpHttpSpanExporter.builder().setEndpoint(endpoint);
        String headers = env.get("OTEL_EXPORTER_OTLP_HEADERS");
        if (headers != null) {
            for (String pair : headers.split(",")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    exporter.addHeader(
                            pair.substring(0, eq).strip(),
                            pair.substring(eq + 1).strip());
                }
            }
        }
        String service = env.getOrDefault("OTEL_SERVICE_NAME", DEFAULT_SERVICE);
        SdkTracerProvider tracers = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(SERVICE_NAME, service))))
                .addSpanProcessor(BatchSpanProcessor.builder(exporter.build()).build())
                .build();
        LOG.info("traces exported endpoint={} service={}", endpoint, service);
        return OpenTelemetrySdk.builder()
                .setTracerProvider(tracers)
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
    }

    /** Where spans go: the traces endpoint as given, else the base endpoint's {@code /v1/traces}; null: nowhere. */
    static String tracesEndpoint(Map<String, String> env) {
        String traces = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        if (traces != null && !traces.isBlank()) {
            return traces.strip();
        }
        String base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT");
        if (base == null || base.isBlank()) {
            return null;
        }
        base = base.strip();
        return (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v1/traces";
    }

    /** Sends what is batched and stops the SDK; nothing for a no-op one. */
    public static void close(OpenTelemetry openTelemetry) {
        if (openTelemetry instanceof OpenTelemetrySdk sdk) {
            sdk.close();
        }
    }
}
