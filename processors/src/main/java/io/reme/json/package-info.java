/** JSON mapping shared by every record on our topics and in our stores (Jackson). */
package io.reme.json;
