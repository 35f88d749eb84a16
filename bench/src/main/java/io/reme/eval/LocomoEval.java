package io.reme.eval;

import com.fasterxml.jackson.databind.JsonNode;
import io.reme.json.Json;
import io.reme.search.EmbeddingFunction;
import io.reme.search.FusionMode;
import io.reme.search.Hit;
import io.reme.search.HybridFusion;
import io.reme.search.MemoryEmbedding;
import io.reme.search.MemoryIndex;
import io.reme.search.MemoryRecord;
import io.reme.search.MemoryType;
import io.reme.search.Retrieval;
import io.reme.search.SearchQuery;
import io.reme.search.SearchResult;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Evidence recall of {@link MemoryIndex#search} on LoCoMo-format data (a JSON list of
 * conversations with {@code conversation.session_N} turn lists, {@code session_N_date_time} and
 * {@code qa} items whose {@code evidence} names dialog ids like {@code D1:3}).
 *
 * <p>Each conversation gets a fresh in-memory index holding every dialog turn as one
 * {@link MemoryType#DIALOG_CHUNK} memory; the text of a turn is shaped by {@link Options}. Each
 * question with evidence runs through the same search path as any other query (tenant, user and
 * type filters included); a question's recall@k is the fraction of its evidence turns among the
 * top k hits (a hit counts for its own turn only, not for neighbours included as context).
 * Recalls are averaged per category and overall.
 *
 * <p>Evidence is read leniently: every {@code D<session>:<turn>} in an evidence string counts
 * (some strings hold two ids, one has a stray colon); ids that are not turns of the conversation
 * are dropped and counted, and a question left without evidence is skipped.
 *
 * <p>Search latency is the time of {@link MemoryIndex#search} alone (query embedding excluded).
 *
 * <p>The data is read by {@link LocomoData}, the hits scored by {@link EvidenceRecall}; this class runs the
 * conversations through the index and reports.
 */
public final class LocomoEval {
    static final String TENANT = "locomo";
    private static final int EMBED_BATCH = 64;

    /**
     * How a turn becomes memory text: {@code speaker: text}, then optionally the image caption,
     * the session date in front and up to {@code context} turns on each side (same session).
     */
    public record Options(
            boolean sessionDate,
            boolean imageCaptions,
            int context,
            FusionMode fusion,
            boolean progress,
            double rrfTextWeight,
            double rrfVectorWeight,
            Retrieval retrieval) {
        public Options {
            if (context < 0) {
                throw new IllegalArgumentException("context must be >= 0");
            }
            if (!(rrfTextWeight >= 0 && rrfVectorWeight >= 0 && rrfTextWeight + rrfVectorWeight > 0)) {
                throw new IllegalArgumentException("RRF weights must be >= 0 and not both 0");
            }
            fusion = fusion == null ? FusionMode.RANK_AND_SCORE : fusion;
            retrieval = retrieval == null ? Retrieval.CLIENT : retrieval;
        }

        /** The service's fusion, with equal RRF weights. */
        public Options(boolean sessionDate, boolean imageCaptions, int context, FusionMode fusion, boolean progress) {
            this(sessionDate, imageCaptions, context, fusion, progress, 1, 1, Retrieval.CLIENT);
        }

        /** Whether RRF runs with other weights than the service's: an experiment, see {@link #search}. */
        boolean reweighted() {
            return fusion != FusionMode.WEIGHTED && rrfTextWeight != rrfVectorWeight;
        }

        /**
         * Captions, session date, and two neighbours each side as the turn's context. One neighbour was
         * chosen when the context was part of the turn's only text (BM25 alone: a wider one blurred
         * rank 1); since the bare turn is searched as well, rank 1 is decided mostly by it, and two
         * neighbours cover the exchange around a turn (the question before it and the reply after it, on
         * both sides) for recall at 5 to 50. Three measured worse at every k (docs/evaluation.md).
         */
        public static Options defaults() {
            return new Options(true, true, 2, FusionMode.RANK_AND_SCORE, true);
        }

        public String describe() {
            return "turn text = speaker: text" + (imageCaptions ? " + image caption" : "")
                    + (sessionDate ? ", session date in front" : "")
                    + (context > 0 ? ", +" + context + " neighbouring turn(s) each side" : "")
                    + "; fusion " + fusion.name().toLowerCase(Locale.ROOT)
                    + "; retrieval " + retrieval.name()
                    + (reweighted()
                            ? String.format(
                                    Locale.ROOT,
                                    " (text weight %.2f, vector weight %.2f)",
                                    rrfTextWeight,
                                    rrfVectorWeight)
                            : "");
        }
    }

    /** One model's embeddings, under the name the index files its vectors by. */
    public record Embedder(String model, EmbeddingFunction function) {}

    /**
     * Which model embeds a text: a memory's (and its context with it) or a question's, as the service's
     * {@code EmbeddingModel#modelFor} chooses.
     */
    @FunctionalInterface
    public interface Embeddings {
        Embedder forText(String text);

        /** One model for every text. */
        static Embeddings of(String model, EmbeddingFunction function) {
            Embedder only = new Embedder(model, function);
            return text -> only;
        }
    }

    /** Mean recall at each of {@link EvidenceRecall#KS} over {@code questions} questions. */
    public record Recall(String label, int questions, double[] atK) {
        public Recall {
            atK = atK.clone();
        }

        @Override
        public double[] atK() {
            return atK.clone();
        }

        public double at(int k) {
            for (int i = 0; i < EvidenceRecall.KS.length; i++) {
                if (EvidenceRecall.KS[i] == k) {
                    return atK[i];
                }
            }
            throw new IllegalArgumentException("k " + k + " not measured");
        }
    }

    /**
     * The share of questions with some evidence in the top k (recall_any) and with all of it (recall_all) at each
     * of {@link EvidenceRecall#KS}, the mean reciprocal rank of the first evidence, and the mean NDCG@10.
     */
    public record Ranking(String label, int questions, double[] anyAtK, double[] allAtK, double mrr, double ndcg10) {
        public Ranking {
            anyAtK = anyAtK.clone();
            allAtK = allAtK.clone();
        }

        @Override
        public double[] anyAtK() {
            return anyAtK.clone();
        }

        @Override
        public double[] allAtK() {
            return allAtK.clone();
        }
    }

    /** Everything measured in one run. */
    public record Report(
            Options options,
            boolean vectors,
            int conversations,
            int turns,
            List<Recall> categories,
            Recall overall,
            List<Recall> capped,
            List<Ranking> rankings,
            int skippedQuestions,
            int droppedEvidence,
            double indexSeconds,
            double embedSeconds,
            double searchP50Millis,
            double searchP99Millis) {

        public double recordsPerSecond() {
            return indexSeconds == 0 ? 0 : turns / indexSeconds;
        }

        public void print(PrintStream out) {
            out.printf(
                    Locale.ROOT,
                    "LoCoMo evidence recall@k, %s (%s)%n",
                    vectors ? "BM25 + vectors" : "BM25 only",
                    options.describe());
            StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-16s %5s", "category", "n"));
            for (int k : EvidenceRecall.KS) {
                header.append(String.format(Locale.ROOT, " %6s", "@" + k));
            }
            out.println(header);
            for (Recall r : categories) {
                out.println(row(r));
            }
            out.println(row(overall));
            out.printf(
                    Locale.ROOT,
                    "%d conversations, %d turns indexed in %.2f s (%.0f records/s)%s; "
                            + "%d questions skipped (no evidence), %d evidence ids dropped (not a turn)%n",
                    conversations,
                    turns,
                    indexSeconds,
                    recordsPerSecond(),
                    vectors ? String.format(Locale.ROOT, ", embedding %.2f s", embedSeconds) : "",
                    skippedQuestions,
                    droppedEvidence);
            out.printf(Locale.ROOT, "search latency p50 %.3f ms, p99 %.3f ms%n", searchP50Millis, searchP99Millis);
            out.println(
                    "evidence found in the top k / min(k, evidence): 1 when the first k hits are all evidence "
                            + "or hold all of it (recall@1 of a question with two evidence turns is at most 0.5 above, 1 here)");
            out.println(header);
            for (Recall r : capped) {
                out.println(row(r));
            }
            out.println("some evidence in the top k (any), all of it (all), mean reciprocal rank, NDCG@10");
            out.println(String.format(
                    Locale.ROOT,
                    "%-16s %5s %6s %6s %6s %6s %6s %6s %6s %6s",
                    "category",
                    "n",
                    "any@1",
                    "any@5",
                    "any@10",
                    "all@5",
                    "all@10",
                    "all@50",
                    "MRR",
                    "NDCG10"));
            for (Ranking r : rankings) {
                out.println(String.format(
                        Locale.ROOT,
                        "%-16s %5d %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f",
                        r.label(),
                        r.questions(),
                        r.anyAtK()[0],
                        r.anyAtK()[1],
                        r.anyAtK()[2],
                        r.allAtK()[1],
                        r.allAtK()[2],
                        r.allAtK()[4],
                        r.mrr(),
                        r.ndcg10()));
            }
        }

        private static String row(Recall r) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-16s %5d", r.label(), r.questions()));
            for (double v : r.atK()) {
                sb.append(String.format(Locale.ROOT, " %6.3f", v));
            }
            return sb.toString();
        }
    }

    private LocomoEval() {}

    /** Runs with {@link Options#defaults()} and prints the report; {@code embed} may be null (BM25 only). */
    public static Report run(Path data, Embeddings embed, PrintStream out) throws IOException {
        return run(data, embed, Options.defaults(), out);
    }

    public static Report run(Path data, Embeddings embed, Options options, PrintStream out) throws IOException {
        JsonNode root = Json.MAPPER.readTree(Files.readAllBytes(data));
        if (!root.isArray()) {
            throw new IllegalArgumentException(data + ": expected a JSON list of conversations");
        }
        EvidenceRecall recalls = new EvidenceRecall(
                root.isEmpty()
                        ? EvidenceRecall.LOCOMO
                        : EvidenceRecall.namesFor(root.get(0).path("sample_id").asText("")));
        List<Long> latencies = new ArrayList<>();
        FusionSweep sweep = Boolean.getBoolean("reme.eval.sweep") ? new FusionSweep() : null;
        // Each question's evidence and ranked turns, one JSON line each, to read where a retrieval misses.
        String dumpTo = System.getProperty("reme.eval.dump");
        PrintStream dump = dumpTo == null
                ? null
                : new PrintStream(Files.newOutputStream(Path.of(dumpTo)), true, StandardCharsets.UTF_8);
        int turns = 0;
        int skipped = 0;
        int dropped = 0;
        long indexNanos = 0;
        long embedNanos = 0;
        int done = 0;
        long totalTurns = 0;
        for (JsonNode conv : root) {
            totalTurns += LocomoData.turns(conv.path("conversation")).size();
        }
        Progress progress =
                options.progress() ? new Progress(System.err, root.size(), totalTurns, System::nanoTime) : null;
        for (JsonNode conv : root) {
            done++;
            String sample = conv.path("sample_id").asText("conv-" + done);
            String user = sample.replaceAll("[^A-Za-z0-9._-]", "_");
            List<LocomoData.Turn> dialog = LocomoData.turns(conv.path("conversation"));
            Set<String> diaIds = new LinkedHashSet<>();
            dialog.forEach(t -> diaIds.add(t.diaId()));
            turns += dialog.size();
            if (progress != null) {
                progress.indexing(done, sample, dialog.size());
            }
            List<MemoryRecord> records = LocomoData.records(sample, user, dialog, options);
            if (embed != null) {
                long e0 = System.nanoTime();
                records = withVectors(records, embed);
                embedNanos += System.nanoTime() - e0;
            }
            try (MemoryIndex index = MemoryIndex.inMemory()) {
                long i0 = System.nanoTime();
                for (MemoryRecord r : records) {
                    index.upsert(r);
                }
                index.refresh();
                indexNanos += System.nanoTime() - i0;

                JsonNode qa = conv.path("qa");
                int answered = 0;
                for (JsonNode item : qa) {
                    LocomoData.Evidence found = LocomoData.evidence(item, diaIds);
                    Set<String> evidence = found.ids();
                    dropped += found.dropped();
                    if (evidence.isEmpty()) {
                        skipped++;
                        continue;
                    }
                    String question = item.path("question").asText();
                    // The product's own retrieval, over this conversation's index.
                    QuestionSearch asked = new QuestionSearch(index, user, embed, options);
                    List<String> ranked = options.retrieval().retrieve(question, EvidenceRecall.MAX_K, asked).stream()
                            .map(h -> h.memory().metadata().get("dia_id"))
                            .toList();
                    embedNanos += asked.embedNanos;
                    latencies.add(asked.searchNanos);
                    int category = item.path("category").asInt(0);
                    if (sweep != null) {
                        Map<String, String> dia = new HashMap<>();
                        SearchQuery whole = asked.first;
                        List<Hit> all = index.candidates(whole).hits();
                        all.forEach(h -> dia.put(h.id(), h.memory().metadata().get("dia_id")));
                        sweep.add(
                                category,
                                question,
                                all,
                                evidence,
                                id -> dia.computeIfAbsent(id, x -> x.substring(x.indexOf('/') + 1)),
                                text -> {
                                    try {
                                        return index.candidates(question(text, user, EvidenceRecall.MAX_K, options)
                                                        .withVector(whole.vectorValues(), whole.vectorModel()))
                                                .hits();
                                    } catch (IOException e) {
                                        throw new UncheckedIOException(e);
                                    }
                                });
                    }
                    recalls.add(category, ranked, evidence);
                    if (dump != null) {
                        dump.println(Json.MAPPER.writeValueAsString(Map.of(
                                "sample", sample,
                                "category", category,
                                "question", question,
                                "evidence", evidence,
                                "ranked", ranked)));
                    }
                    if (progress != null && ++answered % 25 == 0) {
                        progress.asked(done, sample, dialog.size(), answered, qa.size());
                    }
                }
            }
            if (progress != null) {
                progress.finished(dialog.size());
            }
        }
        if (progress != null) {
            progress.done();
        }
        if (dump != null) {
            dump.close();
        }
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        Report report = new Report(
                options,
                embed != null,
                done,
                turns,
                recalls.categories(),
                recalls.overall(),
                recalls.capped(),
                recalls.rankings(),
                skipped,
                dropped,
                indexNanos / 1e9,
                embedNanos / 1e9,
                percentile(sorted, 0.50) / 1e6,
                percentile(sorted, 0.99) / 1e6);
        if (out != null) {
            report.print(out);
            if (sweep != null) {
                sweep.print(out);
            }
        }
        return report;
    }

    /**
     * Each text a retrieval searches for one question: asked of the conversation's index as the question of its
     * user, embedded by the model of its text; the time spent embedding and searching, and the first query (the
     * question whole) kept for the report and the fusion sweep.
     */
    private static final class QuestionSearch implements Retrieval.Search {
        private final MemoryIndex index;
        private final String user;
        private final Embeddings embed;
        private final Options options;
        long embedNanos;
        long searchNanos;
        SearchQuery first;

        QuestionSearch(MemoryIndex index, String user, Embeddings embed, Options options) {
            this.index = index;
            this.user = user;
            this.embed = embed;
            this.options = options;
        }

        @Override
        public List<Hit> search(String text, int depth, int breadth) throws IOException {
            SearchQuery one = question(text, user, depth, options).withBreadth(breadth);
            if (embed != null) {
                long e0 = System.nanoTime();
                Embedder embedder = embed.forText(text);
                one = one.withVector(embedder.function().embedQuery(text), embedder.model());
                embedNanos += System.nanoTime() - e0;
            }
            long s0 = System.nanoTime();
            SearchResult result = LocomoEval.search(index, one, options);
            searchNanos += System.nanoTime() - s0;
            if (first == null) {
                first = one;
            }
            return result.hits();
        }
    }

    /** A question of the conversation's user, over its dialog, as the evaluation asks it. */
    private static SearchQuery question(String text, String user, int k, Options options) {
        return SearchQuery.builder(TENANT)
                .text(text)
                .k(k)
                .types(Set.of(MemoryType.DIALOG_CHUNK))
                .users(Set.of(user))
                .fusion(options.fusion())
                .build();
    }

    /**
     * The service's search, or for reweighted RRF the index's candidates (the same lists the service
     * fuses) fused here with the options' weights.
     */
    static SearchResult search(MemoryIndex index, SearchQuery q, Options options) throws IOException {
        if (!options.reweighted()) {
            return index.search(q);
        }
        SearchResult all = index.candidates(q);
        List<HybridFusion.Scored> text = new ArrayList<>();
        List<HybridFusion.Scored> vector = new ArrayList<>();
        Map<String, Hit> byId = new HashMap<>();
        for (Hit hit : all.hits()) {
            byId.put(hit.id(), hit);
            if (hit.scores().textScore() != null) {
                text.add(new HybridFusion.Scored(hit.id(), hit.scores().textScore()));
            }
            if (hit.scores().vectorScore() != null) {
                vector.add(new HybridFusion.Scored(hit.id(), hit.scores().vectorScore()));
            }
        }
        List<Hit> hits = HybridFusion.rrf(text, vector, options.rrfTextWeight(), options.rrfVectorWeight()).stream()
                .limit(q.k())
                .map(f -> byId.get(f.id()).withScores(f))
                .toList();
        return new SearchResult(hits, all.timings());
    }

    /** Nearest-rank percentile of sorted values; 0 for none. */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /**
     * The records with the vectors of their text (and text with context) by the model of their text, as the service
     * embeds a memory ({@link MemoryEmbedding}).
     */
    static List<MemoryRecord> withVectors(List<MemoryRecord> records, Embeddings embed) {
        Map<Embedder, List<MemoryRecord>> byModel = new LinkedHashMap<>();
        for (MemoryRecord r : records) {
            byModel.computeIfAbsent(embed.forText(r.text()), e -> new ArrayList<>())
                    .add(r);
        }
        Map<String, MemoryRecord> embedded = new HashMap<>();
        for (Map.Entry<Embedder, List<MemoryRecord>> group : byModel.entrySet()) {
            for (MemoryRecord r : withVectors(group.getValue(), group.getKey())) {
                embedded.put(r.id(), r);
            }
        }
        return records.stream().map(r -> embedded.get(r.id())).toList();
    }

    private static List<MemoryRecord> withVectors(List<MemoryRecord> records, Embedder embedder) {
        List<MemoryRecord> out = new ArrayList<>(records.size());
        for (int from = 0; from < records.size(); from += EMBED_BATCH) {
            List<MemoryRecord> batch = records.subList(from, Math.min(records.size(), from + EMBED_BATCH));
            List<String> texts = new ArrayList<>();
            for (MemoryRecord r : batch) {
                texts.addAll(MemoryEmbedding.texts(r));
            }
            List<float[]> vectors = embedder.function().embed(texts);
            if (vectors.size() != texts.size()) {
                throw new IllegalStateException(
                        "embedding returned " + vectors.size() + " vectors for " + texts.size() + " texts");
            }
            int next = 0;
            for (MemoryRecord r : batch) {
                int count = MemoryEmbedding.texts(r).size();
                out.add(MemoryEmbedding.withVectors(r, vectors.subList(next, next + count), embedder.model()));
                next += count;
            }
        }
        return out;
    }
}
