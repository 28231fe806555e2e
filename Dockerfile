# The gateway's image: a JRE, the jar and the default configuration, run as a non-root user.
#
#   docker build -t lance-version-gateway:0.1.0 .                 (builds the jar in a Maven stage)
#   podman build --build-arg JAR_FROM=context -t lance-version-gateway:0.1.0 .
#                                                  (takes target/lance-version-gateway.jar instead)
#
# JRE_IMAGE and BUILD_IMAGE name the base images; k8s/image.sh builds with a Debian base made
# locally (mmdebstrap) where no registry is reachable.
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG JRE_IMAGE=eclipse-temurin:17-jre
ARG JAR_FROM=build

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY pom.xml ./
COPY src ./src
RUN mvn -B -q -DskipTests -Dspotless.check.skip=true package \
  && cp target/lance-version-gateway.jar /lance-version-gateway.jar

FROM scratch AS context
COPY target/lance-version-gateway.jar /lance-version-gateway.jar

FROM ${JAR_FROM} AS jar

FROM ${JRE_IMAGE}
WORKDIR /app
COPY --from=jar /lance-version-gateway.jar /app/lance-version-gateway.jar
COPY conf /app/conf
# Writable by any user without a RUN step; mount a volume and set LVG_DATA_DIR for an embedded
# database or local tables that must outlive the container (the Kubernetes manifests do).
ENV LVG_DATA_DIR=/tmp/lvg-data
# File names in UTF-8 whatever the host's locale: the JVM encodes them as the locale says.
ENV LANG=C.UTF-8
EXPOSE 2333 2334
USER 10001:10001
# Shenandoah collects concurrently: G1's young-generation pauses (10-45 ms every half second under
# an overload on two cores) were what refused and admitted requests alike waited behind.
ENTRYPOINT ["java", "-XX:+UseShenandoahGC", "-jar", "/app/lance-version-gateway.jar"]
