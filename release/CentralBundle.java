import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks the modules that {@code ./mvnw -Prelease deploy} staged against what Maven Central requires, and zips
 * them into a bundle in the Central Portal's layout, with an MD5, SHA-1, SHA-256 and SHA-512 checksum beside
 * every file. Nothing is uploaded.
 *
 * <pre>java release/CentralBundle.java target/staging target/central-bundle.zip [--without-project-address]</pre>
 *
 * Each staged module must be a release (no -SNAPSHOT), with its POM and every file signed (.asc), and a jar
 * module with its sources and Javadoc jars. Each POM must carry a name and a description of its own, and, itself
 * or through a staged parent, a licence, the project's address (url), its source control (scm) and a developer.
 * With {@code --without-project-address}, the last three, which the first release adds, are listed without
 * failing. Exits 1 and names every fault, or writes the bundle.
 */
public final class CentralBundle {

	private static final Map<String, String> CHECKSUMS = new LinkedHashMap<>();

	static {
		CHECKSUMS.put("md5", "MD5");
		CHECKSUMS.put("sha1", "SHA-1");
		CHECKSUMS.put("sha256", "SHA-256");
		CHECKSUMS.put("sha512", "SHA-512");
	}

	private final Path staging;

	private final Map<String, Element> poms = new TreeMap<>();

	private final Set<String> faults = new LinkedHashSet<>();

	private final Map<String, List<String>> left = new TreeMap<>();

	private CentralBundle(Path staging) {
		this.staging = staging;
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 2 || args.length > 3 || (args.length == 3 && !args[2].equals("--without-project-address"))) {
			System.err.println("usage: java CentralBundle.java <staging directory> <bundle.zip> [--without-project-address]");
			System.exit(2);
		}
		Path staging = Path.of(args[0]);
		if (!Files.isDirectory(staging)) {
			System.err.println("No staging directory " + staging + ": run ./mvnw -Prelease deploy first");
			System.exit(1);
		}
		CentralBundle bundle = new CentralBundle(staging);
		List<Path> files = bundle.check(args.length == 3);
		bundle.left.forEach((element, modules) -> System.out.println("Left to the release (Maven Central requires it): <"
				+ element + ">, in " + String.join(", ", modules)));
		if (!bundle.faults.isEmpty()) {
			bundle.faults.forEach((fault) -> System.err.println("Not accepted by Maven Central: " + fault));
			System.exit(1);
		}
		bundle.zip(files, Path.of(args[1]));
		System.out.println("Bundle " + args[1] + ": " + bundle.poms.size() + " modules, " + files.size()
				+ " files, each with " + String.join(", ", CHECKSUMS.keySet()) + ": " + String.join(", ", bundle.poms.keySet()));
	}

	private List<Path> check(boolean withoutProjectAddress) throws Exception {
		List<Path> files = new ArrayList<>();
		try (Stream<Path> walk = Files.walk(this.staging)) {
			walk.filter(Files::isRegularFile).sorted().forEach((file) -> {
				String name = file.getFileName().toString();
				// The repository's own metadata and the deployment's checksums: the bundle carries its own.
				if (!name.startsWith("maven-metadata") && !isChecksum(name)) {
					files.add(file);
				}
			});
		}
		for (Path file : files) {
			String name = file.getFileName().toString();
			if (name.endsWith(".pom")) {
				this.poms.put(coordinates(file), parse(file));
			}
			if (!name.endsWith(".asc") && !Files.exists(file.resolveSibling(name + ".asc"))) {
				this.faults.add(relative(file) + " has no signature (.asc)");
			}
		}
		if (this.poms.isEmpty()) {
			this.faults.add("nothing is staged in " + this.staging);
		}
		for (Map.Entry<String, Element> entry : this.poms.entrySet()) {
			checkModule(entry.getKey(), entry.getValue(), withoutProjectAddress);
		}
		return files;
	}

	private void checkModule(String module, Element pom, boolean withoutProjectAddress) {
		String version = inherited(pom, "version");
		if (version == null || version.endsWith("-SNAPSHOT")) {
			this.faults.add(module + " is not a release version: set the release's version first");
		}
		for (String required : List.of("name", "description")) {
			if (text(pom, required) == null) {
				this.faults.add(module + "'s POM has no <" + required + ">");
			}
		}
		if (inheritedElement(pom, "licenses") == null) {
			this.faults.add(module + "'s POM has no <licenses>, nor has its parent");
		}
		for (String address : List.of("url", "scm", "developers")) {
			if (inheritedElement(pom, address) == null) {
				if (withoutProjectAddress) {
					this.left.computeIfAbsent(address, (key) -> new ArrayList<>()).add(module);
				}
				else {
					this.faults.add(module + "'s POM has no <" + address + ">, nor has its parent");
				}
			}
		}
		String packaging = text(pom, "packaging");
		if (packaging == null || packaging.equals("jar")) {
			String[] coordinates = module.split(":");
			Path directory = this.staging.resolve(coordinates[0].replace('.', '/')).resolve(coordinates[1])
					.resolve(coordinates[2]);
			for (String classifier : List.of("", "-sources", "-javadoc")) {
				String jar = coordinates[1] + "-" + coordinates[2] + classifier + ".jar";
				if (!Files.exists(directory.resolve(jar))) {
					this.faults.add(module + " has no " + jar);
				}
			}
		}
	}

	/** The element of the POM, or of the nearest staged parent that has it. */
	private Element inheritedElement(Element pom, String name) {
		for (Element current = pom; current != null; current = parentOf(current)) {
			Element found = child(current, name);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	private String inherited(Element pom, String name) {
		String own = text(pom, name);
		if (own != null) {
			return own;
		}
		Element parent = child(pom, "parent");
		return (parent != null) ? text(parent, name) : null;
	}

	private Element parentOf(Element pom) {
		Element parent = child(pom, "parent");
		if (parent == null) {
			return null;
		}
		String coordinates = text(parent, "groupId") + ":" + text(parent, "artifactId") + ":" + text(parent, "version");
		Element staged = this.poms.get(coordinates);
		if (staged == null) {
			this.faults.add("the parent " + coordinates + " of " + text(pom, "artifactId") + " is not staged");
		}
		return staged;
	}

	private String coordinates(Path pomFile) {
		Path version = pomFile.getParent();
		Path artifact = version.getParent();
		Path group = this.staging.relativize(artifact.getParent());
		return group.toString().replace(java.io.File.separatorChar, '.') + ":" + artifact.getFileName() + ":"
				+ version.getFileName();
	}

	private void zip(List<Path> files, Path bundle) throws IOException, NoSuchAlgorithmException {
		Path parent = bundle.toAbsolutePath().getParent();
		Files.createDirectories(parent);
		try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(bundle))) {
			for (Path file : files) {
				byte[] content = Files.readAllBytes(file);
				String entry = relative(file);
				put(zip, entry, content);
				for (Map.Entry<String, String> checksum : CHECKSUMS.entrySet()) {
					byte[] digest = MessageDigest.getInstance(checksum.getValue()).digest(content);
					put(zip, entry + "." + checksum.getKey(), HexFormat.of().formatHex(digest).getBytes());
				}
			}
		}
	}

	private static void put(ZipOutputStream zip, String entry, byte[] content) throws IOException {
		zip.putNextEntry(new ZipEntry(entry));
		OutputStream out = zip;
		out.write(content);
		zip.closeEntry();
	}

	private String relative(Path file) {
		return this.staging.relativize(file).toString().replace(java.io.File.separatorChar, '/');
	}

	private static boolean isChecksum(String name) {
		return CHECKSUMS.keySet().stream().anyMatch((extension) -> name.endsWith("." + extension));
	}

	private static Element parse(Path file) throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setNamespaceAware(false);
		factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
		Document document = factory.newDocumentBuilder().parse(file.toFile());
		return document.getDocumentElement();
	}

	private static Element child(Element parent, String name) {
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				return element;
			}
		}
		return null;
	}

	private static String text(Element parent, String name) {
		Element element = child(parent, name);
		if (element == null) {
			return null;
		}
		String text = element.getTextContent().strip();
		return text.isEmpty() ? null : text;
	}

}
