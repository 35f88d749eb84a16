/** The command line: {@code run}, {@code demo}, {@code bench}; common options and their environment equivalents. */
package io.reme.cli;
