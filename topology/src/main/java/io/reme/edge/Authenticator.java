package io.reme.edge;

import io.reme.api.Caller;
import io.reme.api.cluster.InstanceProof;
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
         * A call between instances: the forwarding header with its proof ({@link InstanceProof}), and a
         * tenant's key; anything else is told the route does not exist (404), whatever its key.
         */
        INTERNAL,
        /** The admin key: 404 when the server has none, 401 for any other key. No quota. */
        ADMIN
    }

    private final TenantSetup tenants;
    /** What proves a call from another instance; null: none is (a server without the deployment's secret). */
    private final InstanceProof instances;

    public Authenticator(TenantSetup tenants, InstanceProof instances) {
        this.tenants = tenants;
        this.instances = instances;
    }

    /**
     * Whether the request comes from another instance of the deployment: it carries the forwarding header and
     * a valid proof for its method, path and key ({@link InstanceProof#verify}), checked on every request.
     */
    boolean fromInstance(String method, String path, String authorization, String forwarded, String proof) {
        return forwarded != null && instances != null && instances.verify(method, path, authorization, proof);
    }

    /**
     * The caller of a route with the given access.
     *
     * @param fromInstance whether the request is proven to come from another instance ({@link #fromInstance})
     * @throws ApiException 401 / 403 / 503 as {@code TenantDirectory#authenticate} refuses the key, 429
     *     past the request quota, 404 for an internal route called by anything but another instance or an
     *     admin route on a server without an admin key
     */
    Caller admit(Access access, String method, String path, String authorization, boolean fromInstance) {
        return switch (access) {
            case PUBLIC -> Caller.ANONYMOUS;
            case TENANT -> admitTenant(authorization);
            case INTERNAL -> {
                // Before the key: a client learns nothing of these routes, not even whether its key is good.
                if (!fromInstance) {
                    throw RouteTable.notFound(method, path);
                }
                yield admitTenant(authorization);
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
