/**
 * Keeps oversized tool outputs from flooding an agent's session window: outputs are cut to a byte
 * budget, and the kept excerpt carries a notice telling the agent where the full output is stored
 * and which line to continue reading from.
 *
 * <p>Everything here is pure string logic; storing the full output is the job of a sink elsewhere.
 */
package io.reme.toolresult;
