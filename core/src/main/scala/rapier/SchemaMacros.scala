package rapier

import scala.quoted.*

/** Compile-time helpers of [[Schema]]: type names, and field paths from selector functions. */
private[rapier] object SchemaMacros:
  /** The fully qualified name of `T`, for named schemas. */
  inline def typeName[T]: String = ${ typeNameImpl[T] }

  private def typeNameImpl[T: Type](using Quotes): Expr[String] =
    import quotes.reflect.*
    Expr(TypeRepr.of[T].typeSymbol.fullName.replace("$", ""))

  /**
   * The simple names of `T`'s type arguments, each followed by its own (`Page[Map[String, Book]]` gives `Map`,
   * `String`, `Book`): what tells `Page[Book]` and `Page[Author]` apart in a schema's name.
   */
  inline def typeArguments[T]: List[String] = ${ typeArgumentsImpl[T] }

  private def typeArgumentsImpl[T: Type](using Quotes): Expr[List[String]] =
    import quotes.reflect.*
    def names(t: TypeRepr): List[String] = t.dealias match
      case AppliedType(_, args) => args.flatMap(a => a.typeSymbol.name.replace("$", "") :: names(a))
      case _ => Nil
    Expr(names(TypeRepr.of[T]))

  /**
   * Whether `A` is one of the types of the tuple `Stack`, or has one among its type arguments, at any depth: a type
   * being derived that refers back to itself (`List[Tree]` inside `Tree`).
   */
  inline def mentions[Stack <: Tuple, A]: Boolean = ${ mentionsImpl[Stack, A] }

  /** Whether `A` is exactly one of the types of `Stack`. */
  inline def isOneOf[Stack <: Tuple, A]: Boolean = ${ isOneOfImpl[Stack, A] }

  private def stackTypes[Stack <: Tuple: Type](using Quotes): List[quotes.reflect.TypeRepr] =
    import quotes.reflect.*
    def walk(t: TypeRepr): List[TypeRepr] = t.dealias match
      case AppliedType(_, List(head, tail)) => head :: walk(tail)
      case _ => Nil
    walk(TypeRepr.of[Stack])

  private def mentionsImpl[Stack <: Tuple: Type, A: Type](using Quotes): Expr[Boolean] =
    import quotes.reflect.*
    val stack = stackTypes[Stack]
    def mentioned(t: TypeRepr): Boolean =
      stack.exists(_ =:= t) ||
        (t.dealias match
          case AppliedType(_, args) => args.exists(mentioned)
          case _ => false)
    Expr(mentioned(TypeRepr.of[A]))

  private def isOneOfImpl[Stack <: Tuple: Type, A: Type](using Quotes): Expr[Boolean] =
    import quotes.reflect.*
    Expr(stackTypes[Stack].exists(_ =:= TypeRepr.of[A]))

  /** `_.items.each.price` as `List("items", "each", "price")`. */
  inline def selectorPath[T, U](inline f: T => U): List[String] = ${ selectorPathImpl('f) }

  private def selectorPathImpl[T: Type, U: Type](f: Expr[T => U])(using Quotes): Expr[List[String]] =
    import quotes.reflect.*
    def fail(t: Tree) = report.errorAndAbort(
      s"a path of fields is expected, such as _.items.each.price, not ${t.show}",
      f
    )
    def path(t: Term, param: Symbol): List[String] = t match
      case Ident(_) if t.symbol == param => Nil
      case Select(qualifier, name) => path(qualifier, param) :+ name
      case Apply(TypeApply(each, _), List(qualifier)) if each.symbol.name == "each" => path(qualifier, param) :+ "each"
      case Apply(each, List(qualifier)) if each.symbol.name == "each" => path(qualifier, param) :+ "each"
      case Inlined(_, Nil, inner) => path(inner, param)
      case Typed(inner, _) => path(inner, param)
      case Block(Nil, inner) => path(inner, param)
      case other => fail(other)
    def lambda(t: Term): List[String] = t match
      case Inlined(_, Nil, inner) => lambda(inner)
      case Block(Nil, inner) => lambda(inner)
      case Lambda(List(param), body) => path(body, param.symbol)
      case other => fail(other)
    val result = lambda(f.asTerm)
    if result.isEmpty then report.errorAndAbort("the path selects no field: use the schema itself", f)
    Expr(result)

/** Marks the elements of a collection, or the value of an option, in a schema path: `_.items.each.price`. */
extension [C[_], A](c: C[A])
  @scala.annotation.compileTimeOnly("each is only for paths in Schema.modify")
  def each: A = throw UnsupportedOperationException("each is only for paths in Schema.modify")
