package io.reme.cli;

import io.reme.app.Providers;
import io.reme.config.AppConfig;
import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.search.EmbeddingFunction;
import io.reme.search.FusionMode;
import io.reme.search.LocomoEval;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eval locomo --data FILE}: evidence recall@k of memory search on LoCoMo-format data, with
 * the index and search code the service uses (each dialog turn a memory, each question a search).
 */
@Command(name = "eval", mixinStandardHelpOptions = true, description = "Evaluate search: locomo.")
final class EvalCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "WHAT", description = "locomo")
    String what;

    @Option(names = "--data", required = true, paramLabel = "FILE", description = "LoCoMo-format JSON.")
    Path data;

    @Option(names = "--context", description = "Neighbouring turns added to each turn's text, each side (default 1).")
    int context = LocomoEval.Options.defaults().context();

    @Option(names = "--no-date", description = "Leave the session date out of the turn text.")
    boolean noDate;

    @Option(names = "--no-captions", description = "Leave image captions out of the turn text.")
    boolean noCaptions;

    @Option(names = "--fusion", description = "rrf (default) or weighted.")
    String fusion = "rrf";

    @Option(names = "--embedding", description = "local (default): hybrid search with the local model; none: BM25 only.")
    String embedding = "local";

    @Option(names = "--quiet", description = "No progress bar.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        if (!"locomo".equals(what)) {
            System.err.println("unknown evaluation '" + what + "'; available: locomo");
            return 2;
        }
        if (!Files.isRegularFile(data)) {
            System.err.println("no such file: " + data);
            return 2;
        }
        AppConfig config = AppConfig.of(Map.of(AppConfig.EMBEDDING.name(), embedding));
        LocomoEval.Options options = new LocomoEval.Options(!noDate, !noCaptions, context,
                FusionMode.valueOf(fusion.toUpperCase(Locale.ROOT)), !quiet);
        try (EmbeddingModel model = Providers.embeddings(config)) {
            EmbeddingFunction embed = model == null ? null : texts -> {
                try {
                    return model.embed(texts);
                } catch (EmbeddingException e) {
                    throw new UncheckedIOException(new java.io.IOException(e.getMessage(), e));
                }
            };
            System.out.println("eval locomo: " + data + "; " + options.describe() + "; embeddings "
                    + (model == null ? "none (BM25 only)" : model.id()));
            LocomoEval.run(data, embed, options, System.out);
        }
        return 0;
    }
}
