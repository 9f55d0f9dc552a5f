package io.idempotency.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The pages a reader is given, README.md and docs/*.md, are held to the code.
 * <ul>
 * <li>Every Java example is preceded by a line {@code <!-- snippet: io/idempotency/docs/File.java#name -->}
 * and is exactly the imports it needs followed by the region of that file (under this module's
 * {@code src/test/java}) between {@code // tag::name[]} and {@code // end::name[]}, with its common leading
 * indentation removed. The imports it needs are those of the file's {@code import} lines whose name (a type's
 * simple name, or a static import's member) the region's code uses outside comments and literals, in the
 * file's order and groups, then an empty line. A tag may mark several regions of one file: they are shown as
 * one block, in order, each with its own indentation removed. The files compile against the library's API,
 * so every example does, and a reader who copies one has its imports exactly.</li>
 * <li>Every relative link names a file of the project, and every {@code #anchor} a heading of its page, by
 * GitHub's rule.</li>
 * <li>README.md stays a front door: at most {@value #README_MAX_LINES} lines.</li>
 * <li>The map of the code in docs/testing.md ("Where things are") names classes that exist, each in the package
 * it is named with.</li>
 * </ul>
 * Files are read relative to this module's directory, and only inside the project.
 */
class DocumentationTest {

    private static final Path PROJECT = Path.of("..").toAbsolutePath().normalize();

    private static final Path SNIPPETS = Path.of("src/test/java").toAbsolutePath().normalize();

    private static final int README_MAX_LINES = 260;

    private static final Pattern MARKER = Pattern.compile("<!--\\s*snippet:\\s*(\\S+?)#(\\S+)\\s*-->");

    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})\\s*([^`\\s]*)[^`]*$");

    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)(?:\\s+#+)?\\s*$");

    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s.*)?$");

    private static final Pattern HTML_LINK = Pattern.compile("(?:href|src)\\s*=\\s*\"([^\"]*)\"");

    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*(?:name|id)\\s*=\\s*\"([^\"]+)\"");

    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(static\\s+)?([\\w.]+(?:\\.\\*)?)\\s*;$");

    private static final Pattern IDENTIFIER = Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*");

    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    private final Map<Path, Page> pages = new HashMap<>();

    @Test
    void everyMarkedExampleIsItsTaggedRegionExactly() {
        List<String> problems = new ArrayList<>();
        Set<String> shown = new TreeSet<>();
        for (Path file : documentation()) {
            Page page = page(file);
            for (int i = 0; i < page.lines().size(); i++) {
                Matcher marker = MARKER.matcher(page.lines().get(i).strip());
                if (!marker.matches() || page.inBlock(i)) {
                    continue;
                }
                String where = page.name() + ":" + (i + 1);
                String snippet = marker.group(1) + "#" + marker.group(2);
                shown.add(snippet);
                Block block = page.blockOpenedAt(i + 1);
                if (block == null || !block.language().equalsIgnoreCase("java")) {
                    problems.add(where + ": the marker of " + snippet + " is not followed, on the next line, by a ```java block");
                    continue;
                }
                List<String> region;
                try {
                    region = region(marker.group(1), marker.group(2));
                }
                catch (IllegalArgumentException ex) {
                    problems.add(where + ": " + ex.getMessage());
                    continue;
                }
                List<String> example = trimTrailing(block.content());
                if (!example.equals(region)) {
                    problems.add(where + ": the example differs from " + snippet
                            + " (- as the page shows it, + as the source has it):\n" + diff(example, region));
                }
            }
        }
        for (String snippet : taggedRegions()) {
            if (!shown.contains(snippet)) {
                problems.add(snippet + ": a tagged region that no page shows");
            }
        }
        assertNone(problems, "Java examples that are not their compiled source");
    }

    @Test
    void everyJavaExampleIsMarkedAsASnippet() {
        List<String> problems = new ArrayList<>();
        for (Path file : documentation()) {
            Page page = page(file);
            for (Block block : page.blocks()) {
                if (!block.language().equalsIgnoreCase("java")) {
                    continue;
                }
                int opening = block.openingLine();
                boolean marked = opening > 0 && MARKER.matcher(page.lines().get(opening - 1).strip()).matches();
                if (!marked) {
                    problems.add(page.name() + ":" + (opening + 1)
                            + ": a ```java block without a <!-- snippet: io/idempotency/docs/File.java#name --> line before it");
                }
            }
        }
        assertNone(problems, "Java examples that nothing compiles");
    }

    @Test
    void everyRelativeLinkResolvesToAFileAndAHeading() {
        List<String> problems = new ArrayList<>();
        for (Path file : documentation()) {
            Page page = page(file);
            for (int i = 0; i < page.lines().size(); i++) {
                if (page.inBlock(i)) {
                    continue;
                }
                for (String target : links(page.lines().get(i))) {
                    String problem = unresolved(file, target);
                    if (problem != null) {
                        problems.add(page.name() + ":" + (i + 1) + ": " + target + ": " + problem);
                    }
                }
            }
        }
        assertNone(problems, "Links that lead nowhere");
    }

    @Test
    void theMapOfTheCodeNamesClassesThatExist() throws IOException {
        List<String> lines = page(PROJECT.resolve("docs/testing.md")).lines();
        int start = lines.indexOf("### Where things are");
        if (start < 0) {
            fail("docs/testing.md has no section \"Where things are\"");
        }
        Set<String> classes = new TreeSet<>();
        try (Stream<Path> files = Files.walk(PROJECT)) {
            files.map((file) -> PROJECT.relativize(file).toString().replace('\\', '/'))
                .filter((file) -> file.contains("/src/main/java/io/idempotency/") && file.endsWith(".java"))
                .map((file) -> file.substring(file.indexOf("/io/idempotency/") + "/io/idempotency/".length(),
                        file.length() - ".java".length()))
                .forEach(classes::add);
        }
        Pattern named = Pattern.compile("^(?:([a-z]\\w*)\\.)?([A-Z]\\w*)$");
        List<String> problems = new ArrayList<>();
        int count = 0;
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            Matcher span = CODE_SPAN.matcher(lines.get(i));
            while (span.find()) {
                Matcher name = named.matcher(span.group(2));
                if (!name.matches()) {
                    continue;
                }
                count++;
                String suffix = ((name.group(1) != null) ? name.group(1) + "/" : "") + name.group(2);
                if (classes.stream().noneMatch((c) -> c.equals(suffix) || c.endsWith("/" + suffix))) {
                    problems.add("docs/testing.md:" + (i + 1) + ": " + span.group(2));
                }
            }
        }
        if (count == 0) {
            fail("The section \"Where things are\" of docs/testing.md names no class");
        }
        assertNone(problems, "Classes the map of the code names that do not exist");
    }

    @Test
    void theReadmeIsAFrontDoor() {
        int lines = page(PROJECT.resolve("README.md")).lines().size();
        if (lines > README_MAX_LINES) {
            fail("README.md has " + lines + " lines, more than " + README_MAX_LINES
                    + ": move the detail to a page of docs/ and link it");
        }
    }

    /** README.md and every page directly under docs/. */
    private static List<Path> documentation() {
        List<Path> files = new ArrayList<>();
        files.add(PROJECT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(PROJECT.resolve("docs"))) {
            docs.filter((path) -> path.getFileName().toString().endsWith(".md")).sorted().forEach(files::add);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return files;
    }

    private Page page(Path file) {
        return this.pages.computeIfAbsent(file.toAbsolutePath().normalize(), Page::read);
    }

    /** The lines of a snippet's regions, each region's common indentation removed. */
    private static List<String> region(String source, String tag) {
        Path file = SNIPPETS.resolve(source).normalize();
        if (!file.startsWith(SNIPPETS) || !Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no file " + source + " under idempotency-docs/src/test/java");
        }
        List<String> lines = readLines(file);
        List<String> shown = new ArrayList<>();
        List<String> current = null;
        boolean found = false;
        for (String line : lines) {
            String marker = line.strip();
            if (marker.equals("// tag::" + tag + "[]")) {
                if (current != null) {
                    throw new IllegalArgumentException(source + ": tag " + tag + " opened twice without an end");
                }
                current = new ArrayList<>();
                found = true;
            }
            else if (marker.equals("// end::" + tag + "[]")) {
                if (current == null) {
                    throw new IllegalArgumentException(source + ": end of tag " + tag + " without its start");
                }
                shown.addAll(dedent(current));
                current = null;
            }
            else if (current != null && !marker.matches("// (tag|end)::[^\\[]+\\[\\]")) {
                current.add(line);
            }
        }
        if (!found) {
            throw new IllegalArgumentException(source + " has no region tagged " + tag);
        }
        if (current != null) {
            throw new IllegalArgumentException(source + ": tag " + tag + " is never ended");
        }
        List<String> region = trimTrailing(shown);
        List<String> imports = importsUsed(source, lines, region);
        if (imports.isEmpty()) {
            return region;
        }
        List<String> example = new ArrayList<>(imports);
        example.add("");
        example.addAll(region);
        return example;
    }

    /**
     * The import lines of a file that a region uses, in the file's order, an empty line between groups as the
     * file has them. An import is used when the name it brings in (the last part of its name) is a word of the
     * region's code, comments and literals left out.
     */
    static List<String> importsUsed(String source, List<String> lines, List<String> region) {
        Set<String> words = new HashSet<>();
        Matcher word = IDENTIFIER.matcher(code(String.join("\n", region)));
        while (word.find()) {
            words.add(word.group());
        }
        List<String> used = new ArrayList<>();
        boolean imports = false;
        boolean gap = false;
        for (String line : lines) {
            String stripped = line.strip();
            if (stripped.isEmpty() || stripped.startsWith("//")) {
                gap = true;
                continue;
            }
            Matcher matcher = IMPORT.matcher(stripped);
            if (!matcher.matches()) {
                if (imports) {
                    break;   // the end of the imports
                }
                continue;    // the package, or a comment before it
            }
            imports = true;
            String name = matcher.group(2);
            if (name.endsWith(".*")) {
                throw new IllegalArgumentException(source + ": " + stripped
                        + ": a snippet's file imports each name, so that its example shows what it uses");
            }
            if (words.contains(name.substring(name.lastIndexOf('.') + 1))) {
                if (gap && !used.isEmpty()) {
                    used.add("");
                }
                used.add(stripped);
                gap = false;
            }
        }
        return used;
    }

    /** Java text with its comments, string and character literals (text blocks too) blanked out. */
    static String code(String text) {
        StringBuilder code = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            if (text.startsWith("//", i)) {
                int end = text.indexOf('\n', i);
                i = (end < 0) ? text.length() : end;
            }
            else if (text.startsWith("/*", i)) {
                int end = text.indexOf("*/", i + 2);
                i = (end < 0) ? text.length() : end + 2;
            }
            else if (text.startsWith("\"\"\"", i)) {
                int end = text.indexOf("\"\"\"", i + 3);
                i = (end < 0) ? text.length() : end + 3;
            }
            else if (text.charAt(i) == '"' || text.charAt(i) == '\'') {
                char quote = text.charAt(i++);
                while (i < text.length() && text.charAt(i) != quote && text.charAt(i) != '\n') {
                    i += (text.charAt(i) == '\\') ? 2 : 1;
                }
                i++;
            }
            else {
                code.append(text.charAt(i++));
                continue;
            }
            code.append(' ');
        }
        return code.toString();
    }

    /** Every {@code file#tag} of the snippet sources. */
    private static Set<String> taggedRegions() {
        Set<String> tags = new TreeSet<>();
        Pattern start = Pattern.compile("^\\s*// tag::([^\\[]+)\\[\\]\\s*$");
        try (Stream<Path> files = Files.walk(SNIPPETS)) {
            files.filter((path) -> path.toString().endsWith(".java")).forEach((file) -> {
                for (String line : readLines(file)) {
                    Matcher matcher = start.matcher(line);
                    if (matcher.matches()) {
                        tags.add(SNIPPETS.relativize(file).toString().replace('\\', '/') + "#" + matcher.group(1));
                    }
                }
            });
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return tags;
    }

    private static List<String> dedent(List<String> lines) {
        int indent = Integer.MAX_VALUE;
        for (String line : lines) {
            if (!line.isBlank()) {
                int leading = 0;
                while (leading < line.length() && Character.isWhitespace(line.charAt(leading))) {
                    leading++;
                }
                indent = Math.min(indent, leading);
            }
        }
        List<String> dedented = new ArrayList<>();
        for (String line : lines) {
            dedented.add(line.isBlank() ? "" : line.substring(indent).stripTrailing());
        }
        return dedented;
    }

    private static List<String> trimTrailing(List<String> lines) {
        List<String> trimmed = new ArrayList<>();
        for (String line : lines) {
            trimmed.add(line.stripTrailing());
        }
        while (!trimmed.isEmpty() && trimmed.get(trimmed.size() - 1).isEmpty()) {
            trimmed.remove(trimmed.size() - 1);
        }
        while (!trimmed.isEmpty() && trimmed.get(0).isEmpty()) {
            trimmed.remove(0);
        }
        return trimmed;
    }

    /** A line diff of the page's example against its source, with two lines of context around each change. */
    private static String diff(List<String> page, List<String> source) {
        int[][] common = new int[page.size() + 1][source.size() + 1];
        for (int i = page.size() - 1; i >= 0; i--) {
            for (int j = source.size() - 1; j >= 0; j--) {
                common[i][j] = page.get(i).equals(source.get(j)) ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        List<String> edits = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < page.size() || j < source.size()) {
            if (i < page.size() && j < source.size() && page.get(i).equals(source.get(j))) {
                edits.add("  " + page.get(i++));
                j++;
            }
            else if (i < page.size() && (j == source.size() || common[i + 1][j] >= common[i][j + 1])) {
                edits.add("- " + page.get(i++));
            }
            else {
                edits.add("+ " + source.get(j++));
            }
        }
        StringBuilder text = new StringBuilder();
        boolean skipped = false;
        for (int line = 0; line < edits.size(); line++) {
            boolean near = false;
            for (int other = Math.max(0, line - 2); other <= Math.min(edits.size() - 1, line + 2); other++) {
                near |= !edits.get(other).startsWith("  ");
            }
            if (near) {
                text.append("    ").append(edits.get(line)).append('\n');
                skipped = false;
            }
            else if (!skipped) {
                text.append("    ...\n");
                skipped = true;
            }
        }
        return text.toString().stripTrailing();
    }

    /** The link targets of one line outside code: inline links and images, reference definitions, HTML. */
    private static List<String> links(String line) {
        String text = CODE_SPAN.matcher(line).replaceAll("");
        List<String> targets = new ArrayList<>();
        Matcher inline = INLINE_LINK.matcher(text);
        while (inline.find()) {
            targets.add(inline.group(1));
        }
        Matcher definition = REFERENCE_DEFINITION.matcher(text);
        if (definition.matches()) {
            targets.add(definition.group(1));
        }
        Matcher html = HTML_LINK.matcher(text);
        while (html.find()) {
            targets.add(html.group(1));
        }
        return targets;
    }

    /** Why a link of a page does not resolve, or {@code null} when it does (or leaves the repository). */
    private String unresolved(Path from, String target) {
        if (target.isEmpty()) {
            return "an empty link";
        }
        if (SCHEME.matcher(target).find() || target.startsWith("//")) {
            return null;
        }
        int hash = target.indexOf('#');
        String path = (hash < 0) ? target : target.substring(0, hash);
        String anchor = (hash < 0) ? null : target.substring(hash + 1);
        path = path.replace("%20", " ");
        Path file;
        if (path.isEmpty()) {
            file = from;
        }
        else if (path.startsWith("/")) {
            file = PROJECT.resolve(path.substring(1)).normalize();
        }
        else {
            file = from.getParent().resolve(path).normalize();
        }
        if (!file.startsWith(PROJECT)) {
            return "leads out of the project";
        }
        if (!Files.exists(file)) {
            return "no such file " + PROJECT.relativize(file);
        }
        if (anchor == null || !file.getFileName().toString().endsWith(".md")) {
            return null;
        }
        Set<String> anchors = page(file).anchors();
        if (!anchors.contains(anchor)) {
            return "no heading of " + PROJECT.relativize(file) + " has the anchor #" + anchor
                    + " (its anchors: " + String.join(", ", anchors) + ")";
        }
        return null;
    }

    /** GitHub's anchor of a heading: its text in lower case, spaces to '-', punctuation other than '-' and '_' dropped. */
    static String anchor(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
        StringBuilder anchor = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach((c) -> {
            if (c == ' ') {
                anchor.append('-');
            }
            else if (c == '-' || c == '_' || Character.isLetterOrDigit(c)) {
                anchor.appendCodePoint(c);
            }
        });
        return anchor.toString();
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static void assertNone(List<String> problems, String what) {
        if (!problems.isEmpty()) {
            fail(what + " (" + problems.size() + "):\n\n" + String.join("\n\n", problems));
        }
    }

    /** A fenced block: the line of its opening fence, its info string's first word, the lines inside. */
    private record Block(int openingLine, int closingLine, String language, List<String> content) {
    }

    private record Page(Path file, List<String> lines, List<Block> blocks) {

        static Page read(Path file) {
            List<String> lines = readLines(file);
            List<Block> blocks = new ArrayList<>();
            int opening = -1;
            String fence = null;
            String language = null;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (fence == null) {
                    Matcher matcher = FENCE.matcher(line);
                    if (matcher.matches()) {
                        opening = i;
                        fence = matcher.group(1);
                        language = matcher.group(2);
                    }
                }
                else {
                    String stripped = line.strip();
                    char mark = fence.charAt(0);
                    if (stripped.startsWith(fence) && stripped.chars().allMatch((c) -> c == mark)) {
                        blocks.add(new Block(opening, i, language, List.copyOf(lines.subList(opening + 1, i))));
                        fence = null;
                    }
                }
            }
            if (fence != null) {
                blocks.add(new Block(opening, lines.size(), language, List.copyOf(lines.subList(opening + 1, lines.size()))));
            }
            return new Page(file, lines, blocks);
        }

        String name() {
            return PROJECT.relativize(this.file).toString().replace('\\', '/');
        }

        boolean inBlock(int line) {
            return this.blocks.stream().anyMatch((block) -> line >= block.openingLine() && line <= block.closingLine());
        }

        Block blockOpenedAt(int line) {
            return this.blocks.stream().filter((block) -> block.openingLine() == line).findFirst().orElse(null);
        }

        /** The anchors of its headings, numbered as GitHub numbers repeated ones, and of its HTML anchors. */
        Set<String> anchors() {
            Set<String> anchors = new LinkedHashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            for (int i = 0; i < this.lines.size(); i++) {
                if (inBlock(i)) {
                    continue;
                }
                Matcher heading = HEADING.matcher(this.lines.get(i));
                if (heading.matches()) {
                    String anchor = anchor(heading.group(2));
                    int count = seen.merge(anchor, 1, Integer::sum);
                    anchors.add((count == 1) ? anchor : anchor + "-" + (count - 1));
                }
                Matcher html = HTML_ANCHOR.matcher(this.lines.get(i));
                while (html.find()) {
                    anchors.add(html.group(1));
                }
            }
            return anchors;
        }

    }

}
