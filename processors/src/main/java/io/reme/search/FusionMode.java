package io.reme.search;

/** How the text (BM25) and vector (kNN) candidate lists are combined; see {@link HybridFusion}. */
public enum FusionMode {
    /** 0.7 x min-max normalised vector score + 0.3 x min-max normalised text score. */
    WEIGHTED,
    /** Reciprocal rank fusion with k = {@value HybridFusion#RRF_K}. */
    RRF,
    /**
     * The default: half reciprocal rank fusion, half each list's raw score divided by that list's best,
     * so how far ahead a memory is in a list counts too; see {@link HybridFusion}.
     */
    RANK_AND_SCORE
}
