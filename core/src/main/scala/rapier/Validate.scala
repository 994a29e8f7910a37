package rapier

/** Validation as a decoding step: the value, or every rule it breaks. */
private final class Validate[T](v: Validator[T]) extends (T => DecodeResult[T]):
  def apply(t: T): DecodeResult[T] =
    val errors = v(t)
    if errors.isEmpty then DecodeResult.Value(t) else DecodeResult.InvalidValue(errors)
