/**
 * The working directory users read and edit: where each file lives ({@link io.reme.workspace.Workspace}),
 * how it is replaced without ever being seen half-written ({@link io.reme.workspace.AtomicFiles}), what
 * the diary sink last wrote to each document ({@link io.reme.workspace.DocumentLedger}), and the watch that
 * turns a hand edit of a diary or {@code MEMORY.md} into a new document version
 * ({@link io.reme.workspace.DiaryFileWatcher}). No operation follows a symbolic link out of the
 * working directory ({@link io.reme.workspace.RefusedPathException}), and what holds tenants' data is
 * private to its owner ({@link io.reme.workspace.PrivateFiles}).
 */
package io.reme.workspace;
