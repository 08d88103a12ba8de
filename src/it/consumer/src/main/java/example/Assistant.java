package example;

import io.quarkiverse.langchain4j.RegisterAiService;

/** An AI service as quarkus-langchain4j makes one: its calls go out through the framework's own REST client. */
@RegisterAiService
public interface Assistant {

    String chat(String question);

    /** The same, streamed: the framework reads the provider's stream of events with its own client and types. */
    io.smallrye.mutiny.Multi<String> chatStreamed(String question);
}
