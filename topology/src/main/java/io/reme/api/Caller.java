package io.reme.api;

/**
 * Who a request is from, settled by the API's one authentication step ({@code Authenticator}) before
 * any service runs, and what every service takes instead of a header. Services read the tenant; the
 * credential only travels on, to the instances asked on the caller's behalf ({@code InstanceClient}).
 *
 * @param tenant the key's tenant; null for the administrator and on public routes
 * @param principal who presented the key, for logs: {@code static} (a configured key), {@code key
 *     <id>} (an issued key), {@code instance} (a key instances derive for one another), {@code admin}
 *     or {@code anonymous}
 * @param admin whether the caller presented the admin key
 */
public record Caller(String tenant, String principal, boolean admin, Credential credential) {
    public static final Caller ANONYMOUS = new Caller(null, "anonymous", false, new Credential(null));

    public static Caller admin(Credential credential) {
        return new Caller(null, "admin", true, credential);
    }

    /**
     * The {@code Authorization} header a caller presented, handed on as is to the instances asked on its
     * behalf. Never shown: {@link #toString} hides it.
     *
     * @param authorization the header's value; null when none was sent
     */
    public record Credential(String authorization) {
        @Override
        public String toString() {
            return "Credential[hidden]";
        }
    }
}
