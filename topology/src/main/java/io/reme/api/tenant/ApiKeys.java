package io.reme.api.tenant;

import io.reme.message.SafeId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Maps bearer tokens to tenants; the token's tenant is the only tenant a request can see. */
public final class ApiKeys {
    private static final String BEARER = "Bearer ";
    private final Map<String, byte[]> keysByTenant;

    private ApiKeys(Map<String, byte[]> keysByTenant) {
        this.keysByTenant = Map.copyOf(keysByTenant);
    }

    /** Parses {@code tenant:key,tenant:key}; keys must be at least 16 characters and differ between tenants. */
    public static ApiKeys parse(String spec) {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        Map<String, String> tenantsByKey = new HashMap<>();
        for (String pair : spec.split(",")) {
            String trimmed = pair.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int colon = trimmed.indexOf(':');
            if (colon <= 0 || colon == trimmed.length() - 1) {
                throw new IllegalArgumentException("API keys must be tenant:key pairs separated by commas");
            }
            String tenant = SafeId.require("tenant", trimmed.substring(0, colon));
            String key = trimmed.substring(colon + 1);
            if (key.length() < 16) {
                throw new IllegalArgumentException(
                        "the API key of tenant " + tenant + " is shorter than 16 characters");
            }
            if (keys.put(tenant, key.getBytes(StandardCharsets.UTF_8)) != null) {
                throw new IllegalArgumentException("tenant " + tenant + " has more than one API key");
            }
            String owner = tenantsByKey.putIfAbsent(key, tenant);
            if (owner != null) {
                // One key for two tenants would make the request's tenant depend on iteration order.
                throw new IllegalArgumentException("tenants " + owner + " and " + tenant + " have the same API key");
            }
        }
        return new ApiKeys(keys);
    }

    public static ApiKeys single(String tenant, String key) {
        return parse(tenant + ":" + key);
    }

    /**
     * The {@code Authorization} header of the tenant's key, for calls between instances made on the
     * tenant's behalf by the pipeline itself (no client token at hand); empty for an unknown tenant.
     */
    public Optional<String> authorizationOf(String tenant) {
        byte[] key = keysByTenant.get(tenant);
        return key == null ? Optional.empty() : Optional.of(BEARER + new String(key, StandardCharsets.UTF_8));
    }

    public boolean isEmpty() {
        return keysByTenant.isEmpty();
    }

    /**
     * The tenant of an {@code Authorization: Bearer <key>} header (the scheme is case-insensitive, as
     * HTTP authentication schemes are); compares every key in constant time.
     */
    public Optional<String> tenantOf(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Optional.empty();
        }
        byte[] presented = authorization.substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
        String match = null;
        for (Map.Entry<String, byte[]> entry : keysByTenant.entrySet()) {
            if (MessageDigest.isEqual(entry.getValue(), presented)) {
                match = entry.getKey();
            }
        }
        return Optional.ofNullable(match);
    }
}
