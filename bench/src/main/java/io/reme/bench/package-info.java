/**
 * Benchmarks run as commands ({@code bench ingest|search|llm|soak}), never as tests, and the entry
 * point of {@code reme-bench.jar}. Kept out of the product jar, as Lucene keeps {@code lucene/benchmark}
 * apart; the synthetic conversations they replay and the child-JVM launcher come from the topology
 * module's test jar, which its integration tests share.
 */
package io.reme.bench;
