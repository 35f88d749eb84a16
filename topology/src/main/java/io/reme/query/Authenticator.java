package io.reme.query;

/**
 * The API's one authentication step, run before any handler (and before {@code /mcp}'s transport):
 * resolves who calls a route of a given {@link Access} and takes the request from the tenant's
 * request quota. Handlers get the resolved {@link Caller} and never look at the key themselves.
 * Thread-safe: it holds no state of its own.
 */
final class Authenticator {
    /** What a route asks of its caller, declared once per route in {@link ApiServer}'s table. */
    enum Access {
        /** No key: health, metrics, the OpenAPI document and the memory browser's static files. */
        PUBLIC,
        /** A tenant's key (static, issued or an instance's own), within the tenant's request quota. */
        TENANT,
        /**
         * A call between instances: a tenant's key and the forwarding header; a client without the
         * header is told the route does not exist (404), after its key has been checked.
         */
        INTERNAL,
        /** The admin key: 404 when the server has none, 401 for any other key. No quota. */
        ADMIN
    }

    /**
     * Who a request is from.
     *
     * @param tenant the key's tenant; null on {@link Access#PUBLIC} and {@link Access#ADMIN} routes
     * @param authorization the request's {@code Authorization} header as sent (calls between instances
     *     pass it on); may be null
     */
    record Caller(String tenant, String authorization) {}

    private final TenantSetup tenants;

    Authenticator(TenantSetup tenants) {
        this.tenants = tenants;
    }

    /**
     * The caller of a route with the given access.
     *
     * @throws ApiException 401 / 403 / 503 as {@link TenantDirectory#authenticate} refuses the key, 429
     *     past the request quota, 404 for an internal route called without forwarding or an admin route on
     *     a server without an admin key
     */
    Caller admit(Access access, String method, String path, String authorization, boolean forwarded) {
        return switch (access) {
            case PUBLIC -> new Caller(null, authorization);
            case TENANT -> new Caller(admitTenant(authorization), authorization);
            case INTERNAL -> {
                String tenant = admitTenant(authorization);
                if (!forwarded) {
                    throw ApiServer.notFound(method, path);
                }
                yield new Caller(tenant, authorization);
            }
            case ADMIN -> {
                tenants.admin().authenticate(method, path, authorization);
                yield new Caller(null, authorization);
            }
        };
    }

    /** The key's tenant, once the request fits in the tenant's request quota. */
    String admitTenant(String authorization) {
        String tenant = tenantOf(authorization);
        tenants.quotas().admitRequest(tenant);
        return tenant;
    }

    /**
     * The key's tenant, without taking from the quota: for a request already admitted (the MCP
     * transport maps each request's key to its tenant again).
     */
    String tenantOf(String authorization) {
        return tenants.directory().authenticate(authorization);
    }
}
