package io.replaysafe.common.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A pipeline-file key's reference, written on the key itself: the {@code @JsonProperty} parameter
 * of its section's {@code @JsonCreator} names it and gives its Java type, the factory's body
 * validates it, and this gives the help text, the default and the type as a user writes it. {@link
 * ConfigReference} reads them all, so {@code replaysafe help config} and the test that every key is
 * documented share one source.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Help {
  /** What the key means and what its values do, in one or two sentences. */
  String value();

  /** The value when the key is absent, as written in a pipeline file; empty: required, or none. */
  String defaultValue() default "";

  /** The type as written in a pipeline file, when the Java type does not say it. */
  String type() default "";
}
