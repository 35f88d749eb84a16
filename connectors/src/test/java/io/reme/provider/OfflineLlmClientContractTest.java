package io.reme.provider;

/** The offline extractive provider against the provider contract. */
class OfflineLlmClientContractTest extends LlmClientContract {
    @Override
    protected LlmClient client() {
        return new OfflineLlmClient(TOKENS);
    }
}
