package rapier

object SchemaTest:
  enum Colour:
    case Red, Green

  sealed trait Shape
  final case class Circle(radius: Double) extends Shape
  final case class Square(side: Double) extends Shape

  final case class Item(name: String, quantity: Int, tags: List[String])
  final case class Basket(owner: String, items: List[Item], colour: Colour, note: Option[Item], shape: Shape)
      derives Schema

  final case class Plain(a: Int, b: String)

  final case class Tree(label: String, children: List[Tree], parent: Option[Tree])
  final case class Person(name: String, employer: Option[Company])
  final case class Company(name: String, staff: Map[String, Person])
  final case class Page[T](items: List[T])

  sealed trait Expr
  final case class Num(value: Int) extends Expr
  final case class Sum(terms: List[Expr]) extends Expr

  final case class Node(next: Option[Node])
  given nodeSchema: Schema[Node] = Schema.derived

class SchemaTest extends munit.FunSuite:
  import SchemaTest.*

  private val basket =
    Basket("ada", List(Item("pen", 1, List("x")), Item("ink", 0, Nil)), Colour.Red, None, Circle(1))

  test("a case class derives a product of its fields' schemas, named after the class"):
    val s = Schema.derived[Plain]
    s.schemaType match
      case SchemaType.SProduct(fields) =>
        assertEquals(fields.map(_.name), List("a", "b"))
        assertEquals(fields.map(_.schema.schemaType), List(SchemaType.SInteger, SchemaType.SString))
        assertEquals(fields.map(_.get(Plain(1, "x"))), List(1, "x"))
      case other => fail(s"not a product: $other")
    assertEquals(s.name.map(_.shortName), Some("Plain"))
    assertEquals(s.name.map(_.fullName), Some("rapier.SchemaTest.Plain"))

  test("an enum of singletons is a string with its case names; a sealed trait is a coproduct"):
    val colour = Schema.derived[Colour]
    assertEquals(colour.schemaType, SchemaType.SString)
    assertEquals(colour.validator(Colour.Green), Nil)
    Schema.derived[Shape].schemaType match
      case SchemaType.SCoproduct(alternatives, _, alternativeOf) =>
        assertEquals(alternatives.flatMap(_.name.map(_.shortName)), List("Circle", "Square"))
        assertEquals(alternativeOf(Square(1)), 1)
      case other => fail(s"not a coproduct: $other")

  test("a recursive type is derived: its inner mentions refer to it by name"):
    val tree = Schema.derived[Tree]
    val treeName = Schema.Name("rapier.SchemaTest.Tree")
    tree.schemaType match
      case SchemaType.SProduct(List(_, children, parent)) =>
        assertEquals(children.schema.schemaType, SchemaType.SArray(Schema(SchemaType.SRef(treeName))))
        assertEquals(parent.schema.schemaType, SchemaType.SOption(Schema(SchemaType.SRef(treeName))))
        assert(parent.schema.isOptional)
      case other => fail(s"not a product: $other")
    // Mutual recursion, through an option and a map.
    val person = Schema.derived[Person]
    val employer = person.schemaType.asInstanceOf[SchemaType.SProduct].fields(1).schema
    val company = employer.schemaType.asInstanceOf[SchemaType.SOption].element
    assertEquals(company.name.map(_.shortName), Some("Company"))
    assertEquals(
      company.schemaType.asInstanceOf[SchemaType.SProduct].fields(1).schema.schemaType,
      SchemaType.SOpenProduct(Schema(SchemaType.SRef(Schema.Name("rapier.SchemaTest.Person"))))
    )
    // A sealed trait whose alternative holds the trait.
    val expr = Schema.derived[Expr].schemaType.asInstanceOf[SchemaType.SCoproduct]
    val terms = expr.alternatives(1).schemaType.asInstanceOf[SchemaType.SProduct].fields.head.schema
    assertEquals(terms.schemaType, SchemaType.SArray(Schema(SchemaType.SRef(Schema.Name("rapier.SchemaTest.Expr")))))
    // A given defined by derivation doesn't summon itself while it is being built.
    assertEquals(SchemaTest.nodeSchema.name.map(_.shortName), Some("Node"))
    // Rules still apply above the reference.
    val checked = Schema.derived[Tree].modify(_.label)(_.validate(Validator.nonEmptyString))
    assertEquals(checked.check(Tree("", Nil, None)).map(_.pathString), List("label"))

  test("a generic type's name carries its type arguments"):
    assertEquals(Schema.derived[Page[Plain]].name.map(_.typeParameters), Some(List("Plain")))
    assertEquals(Schema.derived[Page[List[Plain]]].name.map(_.typeParameters), Some(List("List", "Plain")))

  test("a sealed trait's schema takes a discriminator; another schema refuses one, saying why"):
    val shape = Schema.derived[Shape].discriminator("kind")
    assertEquals(shape.schemaType.asInstanceOf[SchemaType.SCoproduct].discriminator, Some("kind"))
    val e = intercept[IllegalArgumentException](Schema.derived[Plain].discriminator("kind"))
    assert(e.getMessage.contains("not object"), e.getMessage)

  test("a validator for an option checks a present value only; one for each element names the index"):
    val limit = Validator.min(1).forOption
    assertEquals(limit(None), Nil)
    assertEquals(limit(Some(1)), Nil)
    assertEquals(limit(Some(0)).map(_.rule), List("minimum"))
    assert(limit.canFail)
    assert(!Validator.pass[Int].forOption.canFail)
    val words = Validator.minLength(2).forEach[List[String]]
    assertEquals(words(List("ab", "c", "de", "")).map(_.pathString), List("[1]", "[3]"))
    val codec = summon[Codec[List[String], Option[Int]]].validate(limit)
    assertEquals(codec.decode(List("0")).isInstanceOf[DecodeResult.InvalidValue], true)
    assertEquals(codec.decode(Nil), DecodeResult.Value(None))

  test("a schema without rules finds nothing, and doesn't walk the value"):
    val s = summon[Schema[Basket]]
    assert(!s.hasRules)
    assertEquals(s.check(basket), Nil)

  test("rules on nested fields report every failure with its path"):
    val s = summon[Schema[Basket]]
      .modify(_.owner)(_.validate(Validator.minLength(5)))
      .modify(_.items.each.quantity)(_.validate(Validator.positive))
      .modify(_.items.each.tags)(_.validate(Validator.minSize(1)))
      .modify(_.note.each.name)(_.validate(Validator.maxLength(2)))
    assert(s.hasRules)
    val errors = s.check(basket.copy(note = Some(Item("long", 1, Nil))))
    assertEquals(
      errors.map(e => (e.pathString, e.rule)),
      List(
        ("owner", "minLength"),
        ("items[1].quantity", "exclusiveMinimum"),
        ("items[1].tags", "minItems"),
        ("note.name", "maxLength")
      )
    )
    assertEquals(errors.head.message, "owner must be at least 5 characters long")

  test("rules of a coproduct's alternative apply to values of that alternative only"):
    val s = summon[Schema[Basket]].modify(_.shape)(shape =>
      shape.copy(schemaType = shape.schemaType match
        case SchemaType.SCoproduct(alternatives, d, of) =>
          SchemaType.SCoproduct(
            alternatives.head.asInstanceOf[Schema[Circle]].modify(_.radius)(_.validate(Validator.max(0.5))) ::
              alternatives.tail,
            d,
            of
          )
        case other => other)
    )
    assertEquals(s.check(basket).map(_.pathString), List("shape.radius"))
    assertEquals(s.check(basket.copy(shape = Square(9))), Nil)

  test("a codec's decode checks nested rules too"):
    val s = Schema.derived[Plain].modify(_.a)(_.validate(Validator.min(10)))
    val codec = Codec[String, Plain](s)(raw => DecodeResult.Value(Plain(raw.length, raw)))(_.b)
    assertEquals(
      codec.decode("abc"),
      DecodeResult.InvalidValue(List(ValidationError("minimum", "at least 10", List("a"))))
    )

  test("modifying a path that does not exist fails when the schema is built, naming it"):
    val e = intercept[IllegalArgumentException](Schema.derived[Plain].modifyAt(List("c"))(identity))
    assertEquals(e.getMessage, "can't modify c: no field 'c' in Plain")

  test("paths render fields with dots and indices in brackets"):
    assertEquals(ValidationError.render(List("items", "[2]", "price")), "items[2].price")
    assertEquals(ValidationError.render("body", List("items", "[2]")), "body.items[2]")
    assertEquals(ValidationError.render("query.tag", List("[1]")), "query.tag[1]")
    assertEquals(ValidationError.render("body", Nil), "body")

class SecretsTest extends munit.FunSuite:
  test("constant-time equality is equality"):
    assert(Secrets.constantTimeEquals("token", "token"))
    assert(!Secrets.constantTimeEquals("token", "tokex"))
    assert(!Secrets.constantTimeEquals("token", "token2"))
    assert(!Secrets.constantTimeEquals("", "x"))
    assert(Secrets.constantTimeEquals("päß", "päß"))
