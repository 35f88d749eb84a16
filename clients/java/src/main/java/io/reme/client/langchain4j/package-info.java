/** LangChain4j's chat memory on ReMe sessions ({@link io.reme.client.langchain4j.RemeChatMemoryStore}). */
package io.reme.client.langchain4j;
