/** Benchmarks run as commands ({@code bench ...}), never as tests, and the synthetic conversations they replay. */
package io.reme.bench;
