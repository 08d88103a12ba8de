#!/usr/bin/env bash
# What Slidegate costs a service: builds the same plain quarkus-rest-jackson service (one GET /orders returning
# text) without Slidegate and with each given Slidegate version (the dependency and one @RateLimited on the
# endpoint, nothing else), natively and as a jar, with the same toolchain. Then compare them side by side with
# docs/bench/start-rounds.sh (native) and the printed JVM commands.
#
#   docs/bench/host-cost.sh DIR [VERSION[:properties]...]
#   e.g. docs/bench/host-cost.sh /tmp/host 0.1.0-SNAPSHOT 0.1.0-SNAPSHOT:properties
#   VERSION:properties names the policy on the annotation (@RateLimited("orders")) and keeps its limit in
#   application.properties (slidegate.policies.orders.limits), as most services do; else the annotation carries it.
#   env: QUARKUS=3.34.3, GRAALVM_HOME (or quarkus.native.graalvm-home from MAVEN_OPTS); each VERSION must be in the
#   local Maven repository (./mvnw install -DskipTests -DskipITs). Prints one LABEL=EXECUTABLE@/orders per service.
set -euo pipefail
dir=${1:?usage: host-cost.sh DIR [VERSION...]}; shift
quarkus=${QUARKUS:-3.34.3}
mvnw=$(cd "$(dirname "$0")/../.." && pwd)/mvnw
graal=()
[[ -n "${GRAALVM_HOME:-}" ]] && graal=(-Dquarkus.native.graalvm-home="$GRAALVM_HOME")

app() { # app NAME SLIDEGATE_VERSION_OR_EMPTY [properties]
  local d=$dir/$1 version=$2 form=${3:-} dep="" annotation="" import="" properties=""
  if [[ -n $version ]]; then
    dep="<dependency><groupId>dev.slidegate</groupId><artifactId>slidegate</artifactId><version>$version</version></dependency>"
    annotation='    @RateLimited(limits = "1000000/1m")'
    import='import dev.slidegate.api.RateLimited;'
    if [[ $form == properties ]]; then
      annotation='    @RateLimited("orders")'
      properties='slidegate.policies.orders.limits=1000000/1m'
    fi
  fi
  rm -rf "$d"; mkdir -p "$d/src/main/java/example" "$d/src/main/resources"
  cat > "$d/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>example</groupId><artifactId>host-$1</artifactId><version>1.0</version>
<properties><maven.compiler.release>17</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
<dependencyManagement><dependencies><dependency><groupId>io.quarkus.platform</groupId><artifactId>quarkus-bom</artifactId><version>$quarkus</version><type>pom</type><scope>import</scope></dependency></dependencies></dependencyManagement>
<dependencies><dependency><groupId>io.quarkus</groupId><artifactId>quarkus-rest-jackson</artifactId></dependency>$dep</dependencies>
<build><plugins>
<plugin><groupId>io.quarkus.platform</groupId><artifactId>quarkus-maven-plugin</artifactId><version>$quarkus</version><extensions>true</extensions><executions><execution><goals><goal>build</goal></goals></execution></executions></plugin>
<plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
</plugins></build></project>
POM
  cat > "$d/src/main/java/example/OrderResource.java" <<JAVA
package example;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
$import

@Path("/orders")
public class OrderResource {
    @GET
$annotation
    public String list() {
        return "orders";
    }
}
JAVA
  echo "$properties" > "$d/src/main/resources/application.properties"
  "$mvnw" -B -q -f "$d/pom.xml" package -DskipTests -Dquarkus.native.enabled=true "${graal[@]}" > "$d/build.log" 2>&1 \
      || { tail -20 "$d/build.log" >&2; exit 1; }
  echo "$1=$(ls "$d"/target/*-runner)@/orders"
  echo "  jar: java -Dquarkus.http.port=PORT -jar $d/target/quarkus-app/quarkus-run.jar" >&2
}

app plain ""
for v in "$@"; do
  if [[ $v == *:properties ]]; then
    app "slidegate-${v%:properties}-properties" "${v%:properties}" properties
  else
    app "slidegate-$v" "$v"
  fi
done
