package dev.lvg;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.lvg.auth.Declaration;
import dev.lvg.config.GatewayConfig;
import dev.lvg.platform.Exported;
import io.vertx.ext.web.Router;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The shape of the code: one-way packages, a leaf toolbox, files a reader can hold in mind. */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.lvg");

  @Test
  void noPackageDependsOnItselfThroughOthers() {
    slices().matching("dev.lvg.(*)..").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void theHttpToolboxImportsNoFeature() {
    noClasses()
        .that()
        .resideInAPackage("dev.lvg.http..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.lvg",
            "dev.lvg.admin..",
            "dev.lvg.audit..",
            "dev.lvg.auth..",
            "dev.lvg.batch..",
            "dev.lvg.catalog..",
            "dev.lvg.config..",
            "dev.lvg.console..",
            "dev.lvg.db..",
            "dev.lvg.feed..",
            "dev.lvg.management..",
            "dev.lvg.metrics..",
            "dev.lvg.overload..",
            "dev.lvg.platform..",
            "dev.lvg.sink..",
            "dev.lvg.storage..",
            "dev.lvg.tag..",
            "dev.lvg.tenancy..",
            "dev.lvg.transaction..",
            "dev.lvg.version..")
        .check(MAIN);
  }

  /** The packages of the features the module map lists (every feature on), each module's own. */
  private static final List<String> FEATURE_PACKAGES =
      Modules.of(GatewayConfig.fromSettings(Map.of("LVG_CONSOLE", "true"))).stream()
          .map(module -> module.getClass().getPackageName())
          .distinct()
          .toList();

  private static final String[] FEATURES =
      FEATURE_PACKAGES.stream().map(name -> name + "..").toArray(String[]::new);

  @Test
  void theModuleMapNamesEveryFeature() {
    assertThat(FEATURE_PACKAGES)
        .containsExactlyInAnyOrder(
            "dev.lvg.admin",
            "dev.lvg.batch",
            "dev.lvg.catalog",
            "dev.lvg.console",
            "dev.lvg.feed",
            "dev.lvg.restore",
            "dev.lvg.sink",
            "dev.lvg.tag",
            "dev.lvg.transaction",
            "dev.lvg.version");
  }

  @Test
  void aFeatureUsesOnlyWhatAnotherFeatureExports() {
    for (String feature : FEATURE_PACKAGES) {
      noClasses()
          .that()
          .resideInAPackage(feature + "..")
          .should()
          .dependOnClassesThat(
              new DescribedPredicate<JavaClass>("belong to another feature and are not @Exported") {
                @Override
                public boolean test(JavaClass target) {
                  String owner = target.getPackageName();
                  return !owner.equals(feature)
                      && !owner.startsWith(feature + ".")
                      && FEATURE_PACKAGES.stream()
                          .anyMatch(other -> owner.equals(other) || owner.startsWith(other + "."))
                      && !outermost(target).isAnnotatedWith(Exported.class);
                }
              })
          .because("a feature reaches another only through what that one exports")
          .check(MAIN);
    }
  }

  private static JavaClass outermost(JavaClass type) {
    JavaClass outer = type;
    while (outer.getEnclosingClass().isPresent()) {
      outer = outer.getEnclosingClass().get();
    }
    return outer;
  }

  @Test
  void everyFeaturePackageHasAModule() {
    for (String feature : FEATURES) {
      String name = feature.substring(0, feature.length() - 2);
      assertThat(
              MAIN.stream()
                  .filter(type -> type.getPackageName().equals(name))
                  .anyMatch(type -> type.isAssignableTo(dev.lvg.platform.Module.class)))
          .as("a module in %s", name)
          .isTrue();
    }
  }

  @Test
  void thePlatformImportsNoFeature() {
    noClasses()
        .that()
        .resideInAPackage("dev.lvg.platform..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(FEATURES)
        .orShould()
        .dependOnClassesThat()
        .resideInAPackage("dev.lvg")
        .check(MAIN);
  }

  @Test
  void featuresNeverReachUpToTheComposition() {
    noClasses()
        .that()
        .resideInAPackage("dev.lvg.*..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.lvg")
        .check(MAIN);
  }

  @Test
  void featuresServeOperationsOnlyThroughTheirDeclarations() {
    noClasses()
        .that()
        .resideInAnyPackage(FEATURES)
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.vertx.ext.web.Router")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.vertx.ext.web.Route")
        .because("a route comes from a Declaration given to Routes.serve, nowhere else")
        .check(MAIN);
  }

  /** Router methods that make a route for a path. */
  private static final Set<String> PATH_ROUTES =
      Set.of(
          "route",
          "routeWithRegex",
          "get",
          "getWithRegex",
          "post",
          "postWithRegex",
          "put",
          "putWithRegex",
          "delete",
          "deleteWithRegex",
          "patch",
          "patchWithRegex",
          "head",
          "options");

  @Test
  void everyApiRouteComesFromADeclaration() {
    // Only the chain that mounts a Declaration makes a route for a path on the API's router (its
    // catch-all handlers take no path, and the console's static files come through Routes.pages);
    // the management port's few endpoints are its own.
    noClasses()
        .that()
        .doNotHaveFullyQualifiedName("dev.lvg.ChainedRoutes")
        .and()
        .resideOutsideOfPackage("dev.lvg.management..")
        .should()
        .callMethodWhere(
            new DescribedPredicate<JavaMethodCall>("make a Router route for a path") {
              @Override
              public boolean test(JavaMethodCall call) {
                return call.getTargetOwner().isAssignableTo(Router.class)
                    && PATH_ROUTES.contains(call.getTarget().getName())
                    && !call.getTarget().getRawParameterTypes().isEmpty();
              }
            })
        .because("a route is made from a Declaration, whose method and path come from a contract")
        .check(MAIN);
  }

  @Test
  void theRightARouteNeedsComesFromItsDeclaration() {
    // The composition checks rights with Authentication.requiring, given Declaration.right(); no
    // other class decides which right a route needs.
    noClasses()
        .that()
        .doNotHaveFullyQualifiedName("dev.lvg.ChainedRoutes")
        .and()
        .resideOutsideOfPackage("dev.lvg.auth..")
        .should()
        .callMethod(dev.lvg.auth.Authentication.class, "requiring", dev.lvg.operation.Right.class)
        .check(MAIN);
    com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes()
        .that()
        .haveFullyQualifiedName("dev.lvg.ChainedRoutes")
        .should()
        .callMethod(Declaration.class, "right")
        .check(MAIN);
  }

  @Test
  void noMainSourceFileIsOver300Lines() throws IOException {
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      List<String> tooLong =
          files
              .filter(file -> file.toString().endsWith(".java"))
              .filter(file -> lines(file) > 300)
              .map(Path::toString)
              .toList();
      assertThat(tooLong).isEmpty();
    }
  }

  private static long lines(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
