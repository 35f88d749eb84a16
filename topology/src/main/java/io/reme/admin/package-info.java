/** Creating and checking the pipeline's topics at start-up. */
package io.reme.admin;
