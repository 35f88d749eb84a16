package io.reme.provider.offline;

import io.reme.provider.LlmClient;
import io.reme.provider.LlmClientContract;

/** The offline extractive provider against the provider contract. */
class OfflineLlmClientContractTest extends LlmClientContract {
    @Override
    protected LlmClient client() {
        return new OfflineLlmClient(TOKENS);
    }
}
