package io.reme.api.cluster;

import io.reme.llm.RequestSecret;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How an instance proves to another that a call comes from the deployment: header {@value #HEADER} holds
 * {@code <epoch second>.<HMAC>} of the call's method, path and {@code Authorization} at that second, under the
 * deployment's {@link RequestSecret}. The receiver checks it on every request and accepts it within {@link #SKEW}
 * of its own clock, so the forwarding header alone (which anyone can send) opens no internal route, and a proof
 * seen once is good for neither another path nor another key nor long. Thread-safe.
 */
public final class InstanceProof {
    /** The header that carries the proof. */
    public static final String HEADER = "X-Reme-Instance-Proof";
    /** How far the sender's clock may be from the receiver's. */
    static final Duration SKEW = Duration.ofSeconds(60);

    private final RequestSecret secret;
    private final Clock clock;

    InstanceProof(RequestSecret secret, Clock clock) {
        this.secret = Objects.requireNonNull(secret, "secret");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The proofs of the deployment sharing {@code secret}; null without a secret (no call is ever proven). */
    public static InstanceProof of(RequestSecret secret) {
        return secret == null ? null : new InstanceProof(secret, Clock.systemUTC());
    }

    /** The header value for a call of {@code method} to {@code path} with {@code authorization}, now. */
    String sign(String method, String path, String authorization) {
        long now = clock.instant().getEpochSecond();
        return now + "." + secret.signInstanceCall(method, path, authorization, now);
    }

    /** Whether {@code proof} (the header's value, null when absent) proves this call, now. */
    public boolean verify(String method, String path, String authorization, String proof) {
        if (proof == null) {
            return false;
        }
        int dot = proof.indexOf('.');
        if (dot <= 0 || dot > 19) {
            return false;
        }
        long second;
        try {
            second = Long.parseLong(proof, 0, dot, 10);
        } catch (NumberFormatException e) {
            return false;
        }
        long now = clock.instant().getEpochSecond();
        return Math.abs(now - second) <= SKEW.toSeconds()
                && secret.verifyInstanceCall(method, path, authorization, second, proof.substring(dot + 1));
    }
}
