package io.reme.api.cluster;

import org.apache.kafka.streams.state.HostInfo;

/**
 * This instance as the others of its deployment know it: its address (Streams' {@code application.server}),
 * and the proof its calls to them carry ({@link InstanceProof}; null where there is no secret, so nothing it
 * sends opens another instance's internal routes).
 */
public record Instance(HostInfo address, InstanceProof proof) {
    /** An API served without Streams (in tests): no address, nothing forwarded. */
    public static final Instance NONE = new Instance(null, null);
}
