package io.reme.api.cluster;

import io.reme.api.ApiException;
import io.reme.api.Caller;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a keyed read from the instance that owns the key's active task: reads locally when that is
 * this instance, otherwise forwards the request once (marked, so a moving assignment answers 503
 * with Retry-After instead of looping). Streams neither running nor rebalancing, an unknown owner or
 * a store that is not queryable are 503 too.
 *
 * <p>A read that offers a standby path is answered from a standby replica, marked {@link
 * Reply#standby()}, when its owner cannot answer: killed and not yet given up by the group, or back
 * from a crash and restoring the state exactly-once wiped (a static member takes its tasks back at
 * once). This instance's replica is read directly, another instance's is asked with {@link
 * #STANDBY_HEADER}. It may miss what the owner committed last, but the session stays readable from
 * the moment its owner dies instead of after the group's session timeout and the restoration.
 */
public final class OwnerRouting {
    public static final String FORWARDED_HEADER = "X-Reme-Forwarded";
    /** On a forwarded read: answer it from this instance's standby replica, or refuse it. */
    public static final String STANDBY_HEADER = "X-Reme-Read-Standby";

    private static final Logger LOG = LoggerFactory.getLogger(OwnerRouting.class);

    private final Supplier<KafkaStreams.State> state;
    private final Locator locator;
    /** Whether this instance's copy of a store partition is close enough to serve a read that is not the owner's. */
    private final BiPredicate<String, Integer> fresh;

    private final HostInfo self;
    private final InstanceClient client;

    /** @param lags this instance's store lags, shared with the other readers of standby copies */
    public OwnerRouting(StreamsStores streams, StoreLags lags, Instance self) {
        this(
                streams::state,
                (store, key, partitioner) -> partitioner == null
                        ? streams.queryMetadataForKey(store, key, new StringSerializer())
                        : streams.queryMetadataForKey(store, key, partitioner),
                lags::fresh,
                self);
    }

    private OwnerRouting(
            Supplier<KafkaStreams.State> state, Locator locator, BiPredicate<String, Integer> fresh, Instance self) {
        this.state = state;
        this.locator = locator;
        this.fresh = fresh;
        this.self = self.address();
        this.client = InstanceClient.from(self);
    }

    /** Routing over a given state, key metadata and store lags instead of a running application's, for tests. */
    static OwnerRouting over(
            Supplier<KafkaStreams.State> state, Locator locator, BiPredicate<String, Integer> fresh, Instance self) {
        return new OwnerRouting(state, locator, fresh, self);
    }

    /** Where a key's active task and standby replicas are. */
    @FunctionalInterface
    interface Locator {
        /** @param partitioner null for the default partitioning of the string key */
        KeyQueryMetadata locate(String store, String key, StreamPartitioner<String, Object> partitioner);
    }

    /** How a read reached this instance, which decides where it may go next. */
    public enum Hop {
        /** From a client: routed to the owner, or to a standby when the owner cannot answer. */
        CLIENT,
        /** Forwarded to this instance as the owner: answered here or refused, never forwarded again. */
        OWNER,
        /** Forwarded to this instance as a standby holder: read from its standby replica or refused. */
        STANDBY;

        static Hop of(boolean forwarded) {
            return forwarded ? OWNER : CLIENT;
        }

        /** @param forwarded the {@link #FORWARDED_HEADER} value, null on a client's request */
        public static Hop of(String forwarded, String standby) {
            return forwarded == null ? CLIENT : standby != null ? STANDBY : OWNER;
        }
    }

    /**
     * @param store a store partitioned like {@code key}
     * @param path the request path, to forward
     * @param local reads the key from the given partition of the local store
     */
    public Reply route(
            String store, String key, String path, boolean forwarded, Caller caller, IntFunction<Reply> local) {
        return route(store, key, null, path, Hop.of(forwarded), caller, local, null);
    }

    /**
     * As {@link #route(String, String, String, boolean, Caller, IntFunction)}; when the owner cannot
     * answer, {@code standby} reads the key's partition of a standby replica, here or where {@code hop}
     * is {@link Hop#STANDBY} (a standby holder asked by another instance).
     */
    public Reply routeOrStandby(
            String store,
            String key,
            String path,
            Hop hop,
            Caller caller,
            IntFunction<Reply> local,
            IntFunction<Reply> standby) {
        return route(store, key, null, path, hop, caller, local, standby);
    }

    /** As {@link #route(String, String, String, boolean, Caller, IntFunction)} for a store partitioned by {@code partitioner}. */
    public Reply route(
            String store,
            String key,
            StreamPartitioner<String, Object> partitioner,
            String path,
            boolean forwarded,
            Caller caller,
            IntFunction<Reply> local) {
        return route(store, key, partitioner, path, Hop.of(forwarded), caller, local, null);
    }

    private Reply route(
            String store,
            String key,
            StreamPartitioner<String, Object> partitioner,
            String path,
            Hop hop,
            Caller caller,
            IntFunction<Reply> local,
            IntFunction<Reply> standby) {
        // A rebalance keeps the tasks that stay where they are (cooperative), so they serve through it:
        // refusing every read while REBALANCING turned a broker failover, which fences a member and
        // rebalances the group, into 10-15 s of 503s for every session (bench cluster).
        KafkaStreams.State now = state.get();
        if (!now.isRunningOrRebalancing()) {
            throw ApiException.unavailable("streams is " + now + "; try again shortly");
        }
        KeyQueryMetadata owner = locator.locate(store, key, partitioner);
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw ApiException.unavailable("the owner of this key is not known yet; try again shortly");
        }
        if (hop == Hop.STANDBY) {
            Reply here =
                    standby == null || !owner.standbyHosts().contains(self) ? null : standbyHere(store, owner, standby);
            if (here == null) {
                throw ApiException.unavailable("no queryable standby replica of this key here; try again shortly");
            }
            return here;
        }
        if (owner.activeHost().equals(self)) {
            try {
                return local.apply(owner.partition());
            } catch (InvalidStateStoreException e) {
                // Its thread rebalancing (every store of the thread refuses then, the ones that stay too): this
                // copy, when it is current. Restoring, most often after a crash: a standby that kept following.
                Reply here = standby != null ? standbyHere(store, owner, standby) : null;
                if (here == null && hop == Hop.CLIENT) {
                    here = fromStandby(store, owner, standby, path, caller);
                }
                if (here != null) {
                    return here;
                }
                throw ApiException.unavailable(
                        "the store is not queryable right now (moving between instances); try again");
            }
        }
        if (hop == Hop.OWNER) {
            throw ApiException.unavailable("ownership is moving; try again shortly");
        }
        Reply relayed = forward(owner.activeHost(), path, caller, Hop.OWNER);
        if (relayed != null && relayed.status() != 503) {
            return relayed;
        }
        Reply fromStandby = fromStandby(store, owner, standby, path, caller);
        if (fromStandby != null) {
            return fromStandby;
        }
        if (relayed != null) {
            return relayed;
        }
        throw ApiException.unavailable("the instance owning this key did not answer; try again shortly");
    }

    /**
     * The key read from a standby replica because its owner could not answer: this instance's, else
     * the first other holder's that answers; null when there is no standby path or none answers.
     */
    private Reply fromStandby(
            String store, KeyQueryMetadata owner, IntFunction<Reply> standby, String path, Caller caller) {
        if (standby == null) {
            return null;
        }
        if (owner.standbyHosts().contains(self)) {
            Reply here = standbyHere(store, owner, standby);
            if (here != null) {
                return here;
            }
        }
        for (HostInfo holder : owner.standbyHosts()) {
            if (holder.equals(self) || holder.equals(owner.activeHost())) {
                continue;
            }
            Reply there = forward(holder, path, caller, Hop.STANDBY);
            if (there != null && there.status() != 503 && there.status() != 404) {
                LOG.info(
                        "owner could not answer; served from a standby owner={}:{} standby={}:{} partition={}",
                        owner.activeHost().host(),
                        owner.activeHost().port(),
                        holder.host(),
                        holder.port(),
                        owner.partition());
                return there.fromStandby();
            }
        }
        return null;
    }

    /** This instance's copy of the key's partition, when it is current enough; null otherwise. */
    private Reply standbyHere(String store, KeyQueryMetadata owner, IntFunction<Reply> standby) {
        if (!fresh.test(store, owner.partition())) {
            LOG.info("local copy not current enough to serve store={} partition={}", store, owner.partition());
            return null;
        }
        try {
            Reply answer = standby.apply(owner.partition()).fromStandby();
            if (answer.status() == 404) {
                // A copy can show what is there, not that something is not: it may not have caught up with it.
                LOG.info("local copy does not hold the key store={} partition={}", store, owner.partition());
                return null;
            }
            LOG.info(
                    "owner could not answer; served from this instance's copy owner={}:{} partition={}",
                    owner.activeHost().host(),
                    owner.activeHost().port(),
                    owner.partition());
            return answer;
        } catch (InvalidStateStoreException e) {
            LOG.warn("standby not queryable partition={} error={}", owner.partition(), e.getMessage());
            return null;
        }
    }

    /** The answer of the instance asked (as {@code hop} says), or null when it does not answer at all. */
    private Reply forward(HostInfo to, String path, Caller caller, Hop hop) {
        Map<String, String> headers = hop == Hop.STANDBY ? Map.of(STANDBY_HEADER, "true") : Map.of();
        return client.get(InstanceClient.uri(to, path), caller.credential(), headers)
                .orElse(null);
    }
}
