package rapier.examples

import io.circe.Codec
import rapier.*
import rapier.json.circe.jsonBody
import rapier.server.*

import scala.concurrent.Future

/** A JSON body whose codecs are circe's (the guide's JSON page). */
object CirceJson:
  // start:circe
  /** A model with circe's codecs, derived as circe derives them. */
  final case class Note(title: String, tags: List[String]) derives Codec.AsObject

  /** `POST /notes`: the body read and written by circe, its failures reported as jsoniter's are. */
  val addNote: ServerEndpoint[Future] =
    endpoint.post
      .in("notes")
      .in(jsonBody[Note])
      .out(jsonBody[Note])
      .serverLogicSuccess[Future](note => Future.successful(note.copy(tags = note.tags.distinct)))
  // end:circe
