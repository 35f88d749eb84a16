package io.reme.api.context;

import io.reme.api.ApiException;
import io.reme.workspace.RefusedPathException;
import io.reme.workspace.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Answers {@code GET /v1/tool-results/{id}}: the full text of a tool output the session processor
 * truncated, as the tool-results sink stored it in this instance's workspace
 * ({@code <workspace>/<tenant>/tool_result/<id>.txt}). Only the caller's tenant folder is read, and
 * no link is followed. The file is there on the instance that runs the file sinks (every instance
 * of the embedded default; one machine's shared workspace otherwise) until the retention removes it.
 */
public final class ToolResults {
    /** The ids the session processor gives stored outputs: 32 hex digits (a name-based UUID). */
    private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");

    private final Workspace workspace;

    public ToolResults(Workspace workspace) {
        this.workspace = workspace;
    }

    public byte[] read(String tenant, String id) throws IOException {
        if (!ID.matcher(id).matches()) {
            throw new ApiException(
                    400,
                    "invalid_tool_result",
                    "a tool result id is 32 hex digits, as in the truncation notice's tool_result/<id>.txt");
        }
        try {
            Path file = workspace.refuseLinks(workspace.toolResultFile(tenant, id));
            return Files.readAllBytes(file);
        } catch (NoSuchFileException | RefusedPathException e) {
            throw new ApiException(
                    404,
                    "tool_result_not_found",
                    "no stored output " + id + " for this tenant on this instance (past retention, or the file"
                            + " sinks run elsewhere)");
        }
    }
}
