/**
 * Between the instances of a deployment: a keyed read served by its owner or a standby ({@link
 * io.reme.api.cluster.OwnerRouting}), a read over every partition gathered from the instances holding
 * them ({@link io.reme.api.cluster.PartitionFanOut}), the one HTTP client between instances ({@link
 * io.reme.api.cluster.InstanceClient}) and how far this instance's store copies lag ({@link
 * io.reme.api.cluster.StoreLags}). The API reads its Streams client through {@link
 * io.reme.api.cluster.StreamsStores}: its state, its stores and where keys and partitions live.
 */
package io.reme.api.cluster;
