#!/usr/bin/env bash
# A throw-away Quarkus application with one GET /orders (text) and the given extensions, built as a native
# executable: the floor a service with Slidegate is measured against (docs/BENCHMARKS.md).
#
#   docs/bench/floor-app.sh DIR EXTENSION...        e.g. docs/bench/floor-app.sh /tmp/floor/rest quarkus-rest
#   env: GRAALVM_HOME=/opt/graalvm-assembled, QUARKUS=3.34.3; prints the executable's path
set -euo pipefail
dir=${1:?usage: floor-app.sh DIR EXTENSION...}; shift
quarkus=${QUARKUS:-3.34.3}; graal=${GRAALVM_HOME:-/opt/graalvm-assembled}
mvnw=$(cd "$(dirname "$0")/../.." && pwd)/mvnw
rm -rf "$dir"; mkdir -p "$dir/src/main/java/example" "$dir/src/main/resources"
deps=""
for e in "$@"; do deps+="<dependency><groupId>io.quarkus</groupId><artifactId>$e</artifactId></dependency>"; done
cat > "$dir/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>example</groupId><artifactId>floor</artifactId><version>1.0</version>
<properties><maven.compiler.release>17</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
<dependencyManagement><dependencies><dependency><groupId>io.quarkus.platform</groupId><artifactId>quarkus-bom</artifactId><version>$quarkus</version><type>pom</type><scope>import</scope></dependency></dependencies></dependencyManagement>
<dependencies>$deps</dependencies>
<build><plugins>
<plugin><groupId>io.quarkus.platform</groupId><artifactId>quarkus-maven-plugin</artifactId><version>$quarkus</version><extensions>true</extensions><executions><execution><goals><goal>build</goal></goals></execution></executions></plugin>
<plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
</plugins></build></project>
POM
cat > "$dir/src/main/java/example/OrderResource.java" <<JAVA
package example;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

@Path("/orders")
public class OrderResource {
    @GET
    public String list() {
        return "orders";
    }
}
JAVA
touch "$dir/src/main/resources/application.properties"
"$mvnw" -B -q -f "$dir/pom.xml" package -DskipTests -Dquarkus.native.enabled=true -Dquarkus.package.jar.enabled=false \
    -Dquarkus.native.graalvm-home="$graal" > "$dir/build.log" 2>&1 || { tail -20 "$dir/build.log" >&2; exit 1; }
ls "$dir"/target/*-runner
