package io.reme.api.diary;

import io.reme.api.ApiException;
import io.reme.api.RequestBody;

/**
 * The body of {@code PUT /v1/diary/{user}/{document}}: the document's new text and the version the
 * edit is based on (0 for a document that does not exist yet).
 */
public record DiarySave(String content, Long expectedVersion) implements RequestBody {
    public static final String INVALID = "invalid_body";

    @Override
    public void validate() {
        if (content == null) {
            throw new ApiException(400, INVALID, "content must be the document's text");
        }
        if (expectedVersion == null || expectedVersion < 0) {
            throw new ApiException(
                    400, INVALID, "expectedVersion must be the version the edit is based on (0 for a new document)");
        }
    }
}
