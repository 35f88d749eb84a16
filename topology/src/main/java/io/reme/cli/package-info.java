/** The command line: {@code run}, {@code demo}, {@code workers}, {@code replay-dlq}; common options and their environment equivalents. */
package io.reme.cli;
