package io.reme.api;

import io.reme.api.tenant.TenantDirectory;
import io.reme.api.tenant.TenantSetup;

/**
 * The API's one authentication step, run before any handler (and before {@code /mcp}'s transport):
 * resolves who calls a route of a given {@link Access} and takes the request from the tenant's
 * request quota. Handlers get the resolved {@link Caller} and never look at the key themselves.
 * Thread-safe: it holds no state of its own.
 */
public final class Authenticator {
    /** What a route asks of its caller, declared once per route in {@link RouteTable}. */
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

    private final TenantSetup tenants;

    public Authenticator(TenantSetup tenants) {
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
            case PUBLIC -> Caller.ANONYMOUS;
            case TENANT -> admitTenant(authorization);
            case INTERNAL -> {
                Caller caller = admitTenant(authorization);
                if (!forwarded) {
                    throw RouteTable.notFound(method, path);
                }
                yield caller;
            }
            case ADMIN -> {
                tenants.admin().authenticate(method, path, authorization);
                yield Caller.admin(new Caller.Credential(authorization));
            }
        };
    }

    /** The key's caller, once the request fits in the tenant's request quota. */
    Caller admitTenant(String authorization) {
        Caller caller = callerOf(authorization);
        tenants.quotas().admitRequest(caller.tenant());
        return caller;
    }

    /**
     * The key's caller, without taking from the quota: for a request already admitted (the MCP
     * transport maps each request's key to its caller again).
     */
    public Caller callerOf(String authorization) {
        return tenants.directory().caller(authorization);
    }
}
