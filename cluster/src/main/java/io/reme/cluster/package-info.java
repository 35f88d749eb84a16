/**
 * A production-shaped deployment on one machine without containers: three KRaft nodes with SASL and
 * ACLs, Kafka Connect in distributed mode, application instances and a workers process, each a process
 * of its own started from Kafka's official artifacts (resolved by Maven) or the application jar, all
 * under one directory. {@link io.reme.cluster.LocalCluster} starts and stops it and hands each process
 * to faults; {@link io.reme.cluster.ClusterCommand} is its command line.
 */
package io.reme.cluster;
