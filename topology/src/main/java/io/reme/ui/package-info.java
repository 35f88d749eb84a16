/**
 * The memory browser: static files (HTML, CSS, ES modules) served from the jar at {@code /ui} by the
 * API server, on the same port and with the same keys. Nothing is fetched from elsewhere at run time.
 */
package io.reme.ui;
