/** Spring AI's chat memory on ReMe sessions ({@link io.reme.client.springai.RemeChatMemoryRepository}). */
package io.reme.client.springai;
