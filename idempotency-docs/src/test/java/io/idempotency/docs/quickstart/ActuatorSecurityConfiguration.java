package io.idempotency.docs.quickstart;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

// docs/operating.md: who may read the calls that wait for a human over HTTP, and who may settle them.
// SettlingOverHttpTest runs it in the quick start's application.
// tag::security[]
@Configuration(proxyBeanMethods = false)
class ActuatorSecurityConfiguration {

    @Bean
    SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception {
        http.securityMatcher(EndpointRequest.toAnyEndpoint())
            .authorizeHttpRequests((requests) -> requests
                // Settling a call decides what a repeat of it is told: operators only.
                .requestMatchers(EndpointRequest.to("idempotencycalls").withHttpMethod(HttpMethod.POST))
                .hasRole("IDEMPOTENCY_OPERATOR")
                .requestMatchers(EndpointRequest.to("health"))
                .permitAll()
                // Everything else, the stored arguments and errors of the calls included: the operations team.
                .anyRequest()
                .hasRole("OPS"))
            .httpBasic(Customizer.withDefaults())   // or the organisation's sign-on: any authenticated user
            // Actuator takes only JSON bodies, and answers no other origin while CORS is off.
            .csrf((csrf) -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()));
        return http.build();
    }

    // Who holds the roles: an operator, and a member of the operations team who only reads. Their passwords
    // are encoded in the configuration (ops.password.anna={bcrypt}$2a$10$...), never in the code; with the
    // organisation's sign-on instead, its groups are mapped to these roles.
    @Bean
    InMemoryUserDetailsManager operationsTeam(@Value("${ops.password.anna}") String anna,
            @Value("${ops.password.victor}") String victor) {
        return new InMemoryUserDetailsManager(
                User.withUsername("anna").password(anna).roles("OPS", "IDEMPOTENCY_OPERATOR").build(),
                User.withUsername("victor").password(victor).roles("OPS").build());
    }
}
// end::security[]
