package io.reme.provider;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.Timeout;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How to reach an OpenAI-compatible chat completions endpoint.
 *
 * @param baseUrl the API root including the version, e.g. {@code https://api.openai.com/v1}
 * @param apiKey sent as the bearer token (any non-blank value for servers that ignore it)
 * @param model the chat model name, sent with every request
 * @param requestTimeout the longest one HTTP call may take, from connecting to the last byte
 * @param maxOutputTokens {@code max_completion_tokens} of every request
 * @param temperature sampling temperature, or null to leave the provider's default (some reasoning
 *        models accept no other value)
 */
public record OpenAiSettings(
        String baseUrl, String apiKey, String model, Duration requestTimeout, int maxOutputTokens, Double temperature) {

    public static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_OUTPUT_TOKENS = 8192;

    public static final String ENV_BASE_URL = "LLM_BASE_URL";
    public static final String ENV_API_KEY = "LLM_API_KEY";
    public static final String ENV_MODEL = "LLM_MODEL";
    public static final String ENV_TIMEOUT_SECONDS = "LLM_TIMEOUT_SECONDS";
    public static final String ENV_MAX_OUTPUT_TOKENS = "LLM_MAX_OUTPUT_TOKENS";
    public static final String ENV_TEMPERATURE = "LLM_TEMPERATURE";

    public OpenAiSettings {
        Objects.requireNonNull(baseUrl, "baseUrl");
        baseUrl = baseUrl.strip();
        String urlProblem = urlProblem(baseUrl);
        if (urlProblem != null) {
            throw new IllegalArgumentException("baseUrl " + urlProblem);
        }
        if (apiKey == null || apiKey.isBlank()) {
            throw new IllegalArgumentException("apiKey must not be blank");
        }
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("model must not be blank");
        }
        model = model.strip();
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be positive, got " + requestTimeout);
        }
        if (maxOutputTokens <= 0) {
            throw new IllegalArgumentException("maxOutputTokens must be positive, got " + maxOutputTokens);
        }
        if (temperature != null && !(temperature >= 0 && temperature <= 2)) {
            throw new IllegalArgumentException("temperature must be between 0 and 2, got " + temperature);
        }
    }

    /** Settings with the default timeout, output limit and temperature. */
    public static OpenAiSettings of(String baseUrl, String apiKey, String model) {
        return new OpenAiSettings(baseUrl, apiKey, model, DEFAULT_REQUEST_TIMEOUT, DEFAULT_MAX_OUTPUT_TOKENS, null);
    }

    public OpenAiSettings withRequestTimeout(Duration timeout) {
        return new OpenAiSettings(baseUrl, apiKey, model, timeout, maxOutputTokens, temperature);
    }

    public OpenAiSettings withMaxOutputTokens(int tokens) {
        return new OpenAiSettings(baseUrl, apiKey, model, requestTimeout, tokens, temperature);
    }

    public OpenAiSettings withTemperature(Double value) {
        return new OpenAiSettings(baseUrl, apiKey, model, requestTimeout, maxOutputTokens, value);
    }

    /**
     * Reads the settings from environment variables: {@code LLM_API_KEY} and {@code LLM_MODEL} are
     * required; {@code LLM_BASE_URL} defaults to {@value #DEFAULT_BASE_URL}; {@code LLM_TIMEOUT_SECONDS},
     * {@code LLM_MAX_OUTPUT_TOKENS} and {@code LLM_TEMPERATURE} are optional.
     *
     * @throws IllegalArgumentException naming the variable that is missing or wrong
     */
    public static OpenAiSettings fromEnv(Map<String, String> env) {
        String baseUrl = value(env, ENV_BASE_URL);
        if (baseUrl == null) {
            baseUrl = DEFAULT_BASE_URL;
        }
        String urlProblem = urlProblem(baseUrl);
        if (urlProblem != null) {
            throw new IllegalArgumentException(ENV_BASE_URL + " " + urlProblem);
        }
        String apiKey = value(env, ENV_API_KEY);
        if (apiKey == null) {
            throw new IllegalArgumentException(ENV_API_KEY + " is not set: give the key of the LLM endpoint "
                    + "(any non-blank value for a local server that does not check it)");
        }
        String model = value(env, ENV_MODEL);
        if (model == null) {
            throw new IllegalArgumentException(ENV_MODEL + " is not set: name the chat model to use, e.g. gpt-4o-mini");
        }
        Duration timeout = DEFAULT_REQUEST_TIMEOUT;
        String timeoutText = value(env, ENV_TIMEOUT_SECONDS);
        if (timeoutText != null) {
            long seconds = positiveLong(ENV_TIMEOUT_SECONDS, timeoutText);
            timeout = Duration.ofSeconds(seconds);
        }
        int maxOutput = DEFAULT_MAX_OUTPUT_TOKENS;
        String maxOutputText = value(env, ENV_MAX_OUTPUT_TOKENS);
        if (maxOutputText != null) {
            long parsed = positiveLong(ENV_MAX_OUTPUT_TOKENS, maxOutputText);
            if (parsed > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(ENV_MAX_OUTPUT_TOKENS + " is too large: '" + maxOutputText + "'");
            }
            maxOutput = (int) parsed;
        }
        Double temperature = null;
        String temperatureText = value(env, ENV_TEMPERATURE);
        if (temperatureText != null) {
            try {
                temperature = Double.valueOf(temperatureText);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        ENV_TEMPERATURE + " must be a number between 0 and 2, got '" + temperatureText + "'");
            }
            if (!(temperature >= 0 && temperature <= 2)) {
                throw new IllegalArgumentException(
                        ENV_TEMPERATURE + " must be between 0 and 2, got '" + temperatureText + "'");
            }
        }
        return new OpenAiSettings(baseUrl, apiKey, model, timeout, maxOutput, temperature);
    }

    /**
     * A new SDK client for these settings: our own callers retry, so the SDK does not; the connect
     * timeout is the request timeout, capped at 30 s.
     */
    public OpenAIClient newClient() {
        Duration connect = requestTimeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? requestTimeout : MAX_CONNECT_TIMEOUT;
        return OpenAIOkHttpClient.builder()
                .baseUrl(baseUrl)
                .apiKey(apiKey)
                .maxRetries(0)
                .timeout(Timeout.builder()
                        .request(requestTimeout)
                        .connect(connect)
                        .build())
                .build();
    }

    /** Never shows the key. */
    @Override
    public String toString() {
        return "OpenAiSettings[baseUrl=" + baseUrl + ", apiKey=***, model=" + model + ", requestTimeout="
                + requestTimeout + ", maxOutputTokens=" + maxOutputTokens + ", temperature=" + temperature + "]";
    }

    private static String value(Map<String, String> env, String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static long positiveLong(String name, String text) {
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a positive whole number, got '" + text + "'");
        }
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be a positive whole number, got '" + text + "'");
        }
        return value;
    }

    private static String urlProblem(String url) {
        if (url.isEmpty()) {
            return "must not be blank";
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return "is not a URL: '" + url + "'";
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            return "must be an http(s) URL with a host, e.g. " + DEFAULT_BASE_URL + ", got '" + url + "'";
        }
        return null;
    }
}
