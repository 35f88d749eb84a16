/** The names and settings of every topic, defined once. */
package io.reme.topic;
