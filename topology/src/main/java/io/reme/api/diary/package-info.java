/**
 * A user's diary documents and {@code MEMORY.md} over HTTP: read from the document's owner, and saved
 * as signed edits that the single writer applies ({@link io.reme.api.diary.DiaryQueries}, {@link
 * io.reme.api.diary.DiaryWriter}).
 */
package io.reme.api.diary;
