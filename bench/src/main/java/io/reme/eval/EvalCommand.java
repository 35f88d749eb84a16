package io.reme.eval;

import io.reme.config.AppConfig;
import io.reme.embedding.EmbeddingException;
import io.reme.embedding.EmbeddingModel;
import io.reme.embedding.LanguageRoutedEmbeddingModel;
import io.reme.embedding.LocalOnnxEmbeddingModel;
import io.reme.search.EmbeddingFunction;
import io.reme.search.FusionMode;
import io.reme.search.Retrieval;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
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
public final class EvalCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "WHAT", description = "locomo")
    String what;

    @Option(names = "--data", required = true, paramLabel = "FILE", description = "LoCoMo-format JSON.")
    Path data;

    @Option(names = "--context", description = "Neighbouring turns added to each turn's text, each side (default 2).")
    int context = LocomoEval.Options.defaults().context();

    @Option(names = "--no-date", description = "Leave the session date out of the turn text.")
    boolean noDate;

    @Option(names = "--no-captions", description = "Leave image captions out of the turn text.")
    boolean noCaptions;

    @Option(names = "--fusion", description = "rank_and_score (default), rrf or weighted.")
    String fusion = "rank_and_score";

    @Option(
            names = "--embedding",
            description = "local (default): hybrid search with the local model; none: BM25 only.")
    String embedding = "local";

    @Option(
            names = "--model",
            description = "With --embedding local: routed (default, the service's: bge-small-zh-q for Chinese texts, "
                    + "bge-small-q for the rest), or one model for every text: bge-small-q, bge-small-zh-q, minilm-q.")
    String modelName = "routed";

    @Option(names = "--no-query-prefix", description = "Embed questions without the model's query instruction (bge).")
    boolean noQueryPrefix;

    @Option(
            names = "--whole-questions",
            description = "Search a question that asks several as a whole only, not also once per question"
                    + " (the service's search before 2026-12-06).")
    boolean wholeQuestions;

    @Option(
            names = "--no-second-hop",
            description = "Leave each list in its fused order, without the second hop through its first hit"
                    + " (the service's search before 2026-12-06).")
    boolean noSecondHop;

    @Option(
            names = "--no-instructions",
            description = "Leave each list's standing instructions where they rank, instead of bringing the best up"
                    + " behind the first hit (the service's default does)")
    boolean noInstructions;

    @Option(
            names = "--rrf-weights",
            split = ",",
            paramLabel = "TEXT,VECTOR",
            description = "RRF weights of the text and vector lists (default 1,1, the service's).")
    List<Double> rrfWeights = List.of(1.0, 1.0);

    @Option(
            names = "--embedding-cache",
            paramLabel = "DIR",
            description = "Keep computed vectors in DIR and reuse them in later runs (one file per model).")
    Path embeddingCache;

    @Option(names = "--quiet", description = "No progress bar.")
    boolean quiet;

    /** The service's client retrieval, less what the options leave out. */
    private Retrieval retrieval() {
        if (!wholeQuestions && !noSecondHop && !noInstructions) {
            return Retrieval.CLIENT;
        }
        String name = Retrieval.CLIENT.name()
                + (wholeQuestions ? ", whole questions" : "")
                + (noSecondHop ? ", no second hop" : "")
                + (noInstructions ? ", no instructions" : "");
        return new Retrieval(name, !wholeQuestions, !noSecondHop, !noInstructions);
    }

    /** One model, or the routed pair (which owns the two it routes to). */
    private static EmbeddingModel load(List<LocalOnnxEmbeddingModel.Variant> variants) throws EmbeddingException {
        EmbeddingModel first =
                LocalOnnxEmbeddingModel.builder().variant(variants.get(0)).build();
        if (variants.size() == 1) {
            return first;
        }
        try {
            return new LanguageRoutedEmbeddingModel(
                    first,
                    LocalOnnxEmbeddingModel.builder().variant(variants.get(1)).build());
        } catch (EmbeddingException | RuntimeException e) {
            first.close();
            throw e;
        }
    }

    /** The model as the evaluation calls it, through a vector cache when {@code --embedding-cache} names one. */
    private EmbeddingFunction function(EmbeddingModel model) throws IOException {
        EmbeddingFunction direct = new EmbeddingFunction() {
            @Override
            public List<float[]> embed(List<String> texts) {
                try {
                    return model.embed(texts);
                } catch (EmbeddingException e) {
                    throw new UncheckedIOException(new IOException(e.getMessage(), e));
                }
            }

            @Override
            public float[] embedQuery(String query) {
                try {
                    return noQueryPrefix ? model.embed(query) : model.embedQuery(query);
                } catch (EmbeddingException e) {
                    throw new UncheckedIOException(new IOException(e.getMessage(), e));
                }
            }
        };
        return embeddingCache == null
                ? direct
                : CachedEmbeddings.open(
                        direct,
                        embeddingCache.resolve(model.id().replaceAll("[^A-Za-z0-9._-]", "_")
                                + (noQueryPrefix ? "-noprefix" : "") + ".vectors"));
    }

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
        if (embeddingCache != null) {
            if (Files.exists(embeddingCache) && !Files.isDirectory(embeddingCache)) {
                System.err.println("--embedding-cache names a file, not a folder: " + embeddingCache);
                return 2;
            }
            Files.createDirectories(embeddingCache);
        }
        AppConfig config = AppConfig.of(Map.of(AppConfig.EMBEDDING.name(), embedding));
        if (rrfWeights.size() != 2) {
            System.err.println("--rrf-weights takes two numbers, TEXT,VECTOR");
            return 2;
        }
        LocomoEval.Options options = new LocomoEval.Options(
                !noDate,
                !noCaptions,
                context,
                FusionMode.valueOf(fusion.toUpperCase(Locale.ROOT)),
                !quiet,
                rrfWeights.get(0),
                rrfWeights.get(1),
                retrieval());
        List<LocalOnnxEmbeddingModel.Variant> variants = switch (modelName) {
            case "routed" ->
                List.of(
                        LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q,
                        LocalOnnxEmbeddingModel.Variant.BGE_SMALL_ZH_V15_Q);
            case "bge-small-q" -> List.of(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_EN_V15_Q);
            case "bge-small-zh-q" -> List.of(LocalOnnxEmbeddingModel.Variant.BGE_SMALL_ZH_V15_Q);
            case "minilm-q" -> List.of(LocalOnnxEmbeddingModel.Variant.MINILM_L6_V2_Q);
            default -> null;
        };
        if (variants == null) {
            System.err.println(
                    "unknown model '" + modelName + "'; available: routed, bge-small-q, bge-small-zh-q, minilm-q");
            return 2;
        }
        try (EmbeddingModel model = "none".equals(config.get(AppConfig.EMBEDDING)) ? null : load(variants)) {
            LocomoEval.Embeddings embed = null;
            if (model != null) {
                Map<String, LocomoEval.Embedder> embedders = new HashMap<>();
                for (EmbeddingModel one : model instanceof LanguageRoutedEmbeddingModel routed
                        ? List.of(routed.main(), routed.chinese())
                        : List.of(model)) {
                    embedders.put(one.id(), new LocomoEval.Embedder(one.id(), function(one)));
                }
                embed = text -> embedders.get(model.modelFor(text).id());
            }
            if (model instanceof LocalOnnxEmbeddingModel local && Boolean.getBoolean("reme.eval.maxsim")) {
                FusionSweep.tokenVectors = text -> {
                    try {
                        return local.tokenVectors(List.of(text)).get(0);
                    } catch (EmbeddingException e) {
                        throw new UncheckedIOException(new IOException(e.getMessage(), e));
                    }
                };
            }
            System.out.println("eval locomo: " + data + "; " + options.describe() + "; embeddings "
                    + (model == null ? "none (BM25 only)" : model));
            LocomoEval.run(data, embed, options, System.out);
        }
        return 0;
    }
}
