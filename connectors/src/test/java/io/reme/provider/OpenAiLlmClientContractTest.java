package io.reme.provider;

import org.junit.jupiter.api.AfterEach;

/** The OpenAI client passes the provider contract against a local server scripted like a cooperative model. */
class OpenAiLlmClientContractTest extends LlmClientContract {
    private OpenAiTestServer server;

    @Override
    protected LlmClient client() {
        server = OpenAiTestServer.start(CooperativeModel::answer);
        return new OpenAiLlmClient(server.settings());
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }
}
