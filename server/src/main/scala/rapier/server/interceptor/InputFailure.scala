package rapier.server.interceptor

import rapier.{DecodeResult, ValidationError}
import rapier.server.Problem

/** One input that failed to decode, and how. */
final case class InputFailure(input: InputRef, failure: DecodeResult.Failure):
  def message: String = failure match
    case DecodeResult.InvalidValue(errors) => errors.map(messageOf).mkString("; ")
    case _ => s"${input.describe} ${failure.describe}"

  /** The failure as problem-details errors: one per broken rule, each with its location. */
  def problemErrors: List[Problem.Error] = failure match
    case DecodeResult.InvalidValue(errors) =>
      errors.map(e => Problem.Error(ValidationError.render(input.location, e.path), e.rule, e.expected, messageOf(e)))
    case other =>
      DecodeResult.asValidationErrors(other).map { e =>
        val rule = if input.source == InputSource.ContentType && e.rule == "const" then "mediaType" else e.rule
        Problem.Error(ValidationError.render(input.location, e.path), rule, e.expected, message)
      }

  private def messageOf(e: ValidationError): String =
    if e.path.isEmpty then s"${input.describe} ${e.message}"
    else s"${e.pathString} in ${input.describe} must be ${e.expected}"
