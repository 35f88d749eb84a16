/**
 * Application configuration: every option is one self-describing {@link io.reme.config.ConfigField}
 * (name, environment variable, default, validation, documentation), parsed once into the immutable
 * {@link io.reme.config.AppConfig} from a properties file, the environment and command-line options.
 */
package io.reme.config;
