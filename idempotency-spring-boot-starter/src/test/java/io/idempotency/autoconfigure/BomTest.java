package io.idempotency.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The BOM an application imports manages every published module, and nothing else: no parent whose
 * dependency management (Spring Boot's, the test tools') it would hand over with them.
 */
class BomTest {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	@Test
	void theBomManagesExactlyThePublishedModulesAtTheBuildsVersionAndNothingElse() throws Exception {
		Document bom = read(ROOT.resolve("idempotency-bom/pom.xml"));
		Document build = read(ROOT.resolve("pom.xml"));

		assertThat(children(bom.getDocumentElement(), "parent")).as("a parent's management would leak").isEmpty();
		assertThat(text(bom.getDocumentElement(), "version")).isEqualTo(text(build.getDocumentElement(), "version"));
		Set<String> managed = new TreeSet<>();
		Element management = children(bom.getDocumentElement(), "dependencyManagement").get(0);
		for (Element dependency : children(children(management, "dependencies").get(0), "dependency")) {
			assertThat(text(dependency, "groupId")).isEqualTo("io.idempotency");
			assertThat(text(dependency, "version")).isEqualTo("${project.version}");
			managed.add(text(dependency, "artifactId"));
		}
		assertThat(managed).isEqualTo(publishedModules(build));
	}

	/** The modules of the build that are deployed: every jar module that does not skip deployment. */
	private static Set<String> publishedModules(Document build) throws Exception {
		Set<String> published = new TreeSet<>();
		for (Element module : children(children(build.getDocumentElement(), "modules").get(0), "module")) {
			Path pom = ROOT.resolve(module.getTextContent().trim()).resolve("pom.xml");
			Document document = read(pom);
			String packaging = text(document.getDocumentElement(), "packaging");
			boolean skipped = Files.readString(pom).contains("<maven.deploy.skip>true</maven.deploy.skip>");
			if (!skipped && (packaging == null || packaging.equals("jar"))) {
				published.add(text(document.getDocumentElement(), "artifactId"));
			}
		}
		return published;
	}

	private static Document read(Path pom) throws Exception {
		return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
	}

	private static List<Element> children(Element parent, String name) {
		List<Element> found = new ArrayList<>();
		NodeList nodes = parent.getChildNodes();
		for (int i = 0; i < nodes.getLength(); i++) {
			if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE && nodes.item(i).getNodeName().equals(name)) {
				found.add((Element) nodes.item(i));
			}
		}
		return found;
	}

	private static String text(Element parent, String name) {
		List<Element> found = children(parent, name);
		return found.isEmpty() ? null : found.get(0).getTextContent().trim();
	}

}
